import { describe, expect, it } from "vitest";
import { idsInTitle, parseRequirements, titlesInSource, unknownIds } from "./coverage";
import { renderCoverage } from "./render";

const LIST = `## RUN: runs

- RUN-001: There are three run kinds. Each belongs to one agent. [src: 000 Runs]
- RUN-002: A direct run is a chat. [src: 000 Runs]
- OP-RUN-1: Routes are not given. SUGGESTION: these.

## GEN: generation

- GEN-001: A generation is one loop. [src: 000 Generation]
- GEN-002: One generation at a time. [src: 000 Generation]
- GEN-003: A busy agent answers 409. [src: 000 Generation]
`;

// Test calls spelled through placeholders, so scanning this file finds none of them.
const [d, i, t] = ["describe", "it", "test"];
const SOURCE = `
${d}("runs (RUN-001..002)", () => {
  ${i}("RUN-001: opens a run", () => {});
  ${i}(
    "GEN-002/003: refuses a second generation",
    () => {},
  );
  ${i}.each(cases)('OP-RUN-1: %s route', () => {});
  ${t}(\`GEN-009: not in the list\`, () => {});
  ${i}("hashes with SHA-256", () => {});
});
`;

describe("requirement coverage (section 7)", () => {
  const requirements = parseRequirements(LIST);
  const titles = titlesInSource("x.test.ts", SOURCE, ["RUN", "GEN"]);

  it("COVERAGE: reads every requirement and open point with its section, without the source note", () => {
    expect(requirements.map((r) => [r.id, r.section, r.openPoint])).toEqual([
      ["RUN-001", "RUN", false],
      ["RUN-002", "RUN", false],
      ["OP-RUN-1", "RUN", true],
      ["GEN-001", "GEN", false],
      ["GEN-002", "GEN", false],
      ["GEN-003", "GEN", false],
    ]);
    expect(requirements[0]?.statement).toBe("There are three run kinds. Each belongs to one agent.");
  });

  it("COVERAGE: expands slash lists and ranges, keeps open points, ignores other prefixes", () => {
    expect(idsInTitle("SCHED-014/016 and GEN-002..004", ["SCHED", "GEN"])).toEqual(["SCHED-014", "SCHED-016", "GEN-002", "GEN-003", "GEN-004"]);
    expect(idsInTitle("OP-SCHED-7: a gap (SHA-256, X-GEN-001)", ["SCHED", "GEN"])).toEqual(["OP-SCHED-7"]);
  });

  it("COVERAGE: finds titles of describe, it, it.each and test, over lines and in any quotes, with their line", () => {
    expect(titles.map((t) => [t.line, t.title, t.ids])).toEqual([
      [2, "runs (RUN-001..002)", ["RUN-001", "RUN-002"]],
      [3, "RUN-001: opens a run", ["RUN-001"]],
      [4, "GEN-002/003: refuses a second generation", ["GEN-002", "GEN-003"]],
      [8, "OP-RUN-1: %s route", ["OP-RUN-1"]],
      [9, "GEN-009: not in the list", ["GEN-009"]],
      [10, "hashes with SHA-256", []],
    ]);
  });

  it("COVERAGE: names the file, line and title of a test naming an ID the list does not have", () => {
    expect(unknownIds(requirements, titles).map(({ id, test }) => `${test.file}:${test.line} ${id}`)).toEqual(["x.test.ts:9 GEN-009"]);
  });

  it("COVERAGE: lists the tests of each requirement, the reason for the rest, and reports an unexplained one", () => {
    const coverage = renderCoverage(requirements, titles, { "GEN-001": "needs the sandbox", "RUN-001": "kept after its test landed" });
    expect(coverage.markdown).toContain("| RUN | 2 | 2 |");
    expect(coverage.markdown).toContain("| GEN | 2 | 3 |");
    expect(coverage.markdown).toContain("- **GEN-001** A generation is one loop.\n  - pending: needs the sandbox\n");
    expect(coverage.markdown).toContain("- **GEN-002** One generation at a time.\n  - `x.test.ts`: GEN-002/003: refuses a second generation\n");
    expect(coverage.markdown).toContain("- **OP-RUN-1** Routes are not given.\n  - `x.test.ts`: OP-RUN-1: %s route\n");
    expect(coverage.unexplained).toEqual([]);
    expect(coverage.staleReasons).toEqual(["RUN-001"]);
    expect(renderCoverage(requirements, titles, {}).unexplained).toEqual(["GEN-001"]);
  });
});
