import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("HARDEN-5: the requirements check", () => {
  const dir = mkdtempSync(join(tmpdir(), "guilds-requirements-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("HARDEN-5: --check reads the committed list only, whatever another source list says", () => {
    const other = join(dir, "REQUIREMENTS.md");
    writeFileSync(other, "## ZZZ: a different list\n\n- ZZZ-001: Nothing the tests name. [src: 000]\n");
    const run = () =>
      execFileSync(join(ROOT, "node_modules/.bin/tsx"), ["scripts/requirements.ts", "--check"], {
        cwd: ROOT,
        env: { ...process.env, REQUIREMENTS_LIST: other },
        encoding: "utf8",
        stdio: "pipe",
      });
    expect(run).not.toThrow();
  }, 60_000);
});
