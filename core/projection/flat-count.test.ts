import { beforeAll, describe, expect, it, vi } from "vitest";
import { packageRanks } from "./package-ranks";
import { planProjection, STUB_FLOOR_BYTES, StubCounts } from "./projection";
import { RunBuilder, result } from "./rows.fixture";
import { countRowTokens, countText, prepareTokenCounter } from "./token-count";

// Route every tokenizer entry point through spies, so the test sees any encoding planning does.
vi.mock("./token-count", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./token-count")>();
  return { ...actual, countText: vi.fn(actual.countText), countRowTokens: vi.fn(actual.countRowTokens) };
});

const GENERATIONS = 25;
let run: RunBuilder;

beforeAll(async () => {
  await prepareTokenCounter(packageRanks);
  run = new RunBuilder();
  for (let g = 1; g <= GENERATIONS; g++) {
    run.user(g, `Turn ${g}: look at the logs.`);
    run.toolStep(g, "file_read", result(17_000, g), { path: `logs/${g}.txt` });
    run.assistant(g, `Summary of turn ${g}.`);
  }
});

describe("token counting stays flat (GEN-019)", () => {
  it("token counting stays flat: planning a 100k-token history reuses stored counts", () => {
    expect(run.rows.reduce((n, r) => n + r.tokenCount, 0)).toBeGreaterThan(100_000);
    const stubs = new StubCounts();
    const settings = { keep: 1, floor: STUB_FLOOR_BYTES, maxInputTokens: 100_000, toolTokens: 500, stubCounts: stubs };
    const textSpy = vi.mocked(countText);
    const rowSpy = vi.mocked(countRowTokens);

    // First step of generation 26: every earlier result is stubbed, each stub encoded once.
    run.user(GENERATIONS + 1, "Next turn.");
    textSpy.mockClear();
    rowSpy.mockClear();
    const first = planProjection({ rows: run.rows, currentGeneration: GENERATIONS + 1, ...settings });
    expect(first.keepStubbed).toHaveLength(GENERATIONS);
    expect(first.fits).toBe(true);
    expect(textSpy).toHaveBeenCalledTimes(GENERATIONS);
    expect(textSpy.mock.calls.every(([text]) => text.startsWith("[tool result stubbed]"))).toBe(true);
    expect(rowSpy).not.toHaveBeenCalled();

    // Later steps of the same generation: no tokenizer work at all.
    textSpy.mockClear();
    for (let step = 0; step < 5; step++) {
      planProjection({ rows: run.rows, currentGeneration: GENERATIONS + 1, ...settings });
    }
    expect(textSpy).not.toHaveBeenCalled();

    // The next generation encodes only the stub of the one newly stubbed result.
    const fresh = run.toolStep(GENERATIONS + 1, "file_read", result(17_000, 99));
    run.user(GENERATIONS + 2, "And again.");
    textSpy.mockClear();
    rowSpy.mockClear(); // the builder counted the new rows at insert, as the loop does
    const next = planProjection({ rows: run.rows, currentGeneration: GENERATIONS + 2, ...settings });
    expect(next.keepStubbed.at(-1)).toBe(fresh.seq);
    expect(textSpy).toHaveBeenCalledTimes(1);
    expect(rowSpy).not.toHaveBeenCalled();
  });
});
