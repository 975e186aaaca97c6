import { beforeAll, describe, expect, it } from "vitest";
import { packageRanks } from "./package-ranks";
import {
  atOrAboveFloor,
  imageRefs,
  type PlanInput,
  planProjection,
  replayProjection,
  STUB_FLOOR_BYTES,
  STUDIO_PROJECTION,
  StubCounts,
  stubFor,
  utf8ByteLength,
} from "./projection";
import { promptHash } from "./prompt-hash";
import { RunBuilder, result } from "./rows.fixture";
import { countRowTokens, PROMPT_OVERHEAD, prepareTokenCounter } from "./token-count";
import type { StoredRow } from "./types";

beforeAll(() => prepareTokenCounter(packageRanks));

const BIG = result(3000);
const SMALL = result(2047);
const plan = (rows: readonly StoredRow[], over: Partial<PlanInput> = {}) =>
  planProjection({
    rows,
    currentGeneration: 1,
    keep: 1,
    floor: STUB_FLOOR_BYTES,
    maxInputTokens: 100_000,
    toolTokens: 0,
    stubCounts: new StubCounts(),
    ...over,
  });
const stubbedSeqs = (messages: readonly { role: string; content?: unknown }[]) =>
  messages.flatMap((m, seq) => (m.role === "tool" && String(m.content).startsWith("[tool result stubbed]") ? [seq] : []));

/** Three generations: each has one large and one small result. */
function threeGenerations() {
  const run = new RunBuilder();
  const big: StoredRow[] = [];
  const small: StoredRow[] = [];
  for (let g = 1; g <= 3; g++) {
    run.user(g, `turn ${g}`);
    big.push(run.toolStep(g, "file_read", result(3000, g), { path: `src/f${g}.ts` }));
    small.push(run.toolStep(g, "note_read", result(500, g)));
    run.assistant(g, `done ${g}`);
  }
  return { rows: run.rows, big, small };
}

describe("tool-result stubbing (PROJ)", () => {
  it("PROJ-002: the stub names tool_name, source_seq, path and range", () => {
    const run = new RunBuilder();
    const withRef = run.toolStep(1, "file_read", BIG, { path: "src/app.ts", range: "10-80" });
    const bare = run.toolStep(1, "shell", BIG);
    expect(stubFor(withRef)).toBe(
      `[tool result stubbed] {"tool_name":"file_read","source_seq":${withRef.seq},"path":"src/app.ts","range":"10-80"} Call file_read again to see it.`,
    );
    expect(stubFor(bare)).toBe(`[tool result stubbed] {"tool_name":"shell","source_seq":${bare.seq}} Call shell again to see it.`);
  });

  it("PROJ-005: with keep 1 every previous generation's large results are stubbed", () => {
    const { rows, big } = threeGenerations();
    const p = plan(rows, { currentGeneration: 3, keep: 1 });
    expect(p.keepStubbed).toEqual([big[0]!.seq, big[1]!.seq]);
    expect(stubbedSeqs(p.messages)).toEqual([big[0]!.seq, big[1]!.seq]);
    expect(p.messages[big[2]!.seq]).toBe(big[2]!.payload);
    expect(p.pressureStubbed).toEqual([]);
  });

  it("PROJ-006: keep 2 keeps the previous generation", () => {
    const { rows, big } = threeGenerations();
    const p = plan(rows, { currentGeneration: 3, keep: 2 });
    expect(p.keepStubbed).toEqual([big[0]!.seq]);
    expect(p.messages[big[1]!.seq]).toBe(big[1]!.payload);
  });

  it("PROJ-007: a result under 2048 bytes is never stubbed, not even under pressure", () => {
    const run = new RunBuilder();
    run.user(1, "go");
    const ascii = run.toolStep(1, "note_read", SMALL);
    const multibyte = run.toolStep(1, "note_read", `${"é".repeat(1023)}x`); // 2047 bytes, 1024 units
    const atFloor = run.toolStep(1, "note_read", "é".repeat(1024)); // exactly 2048 bytes
    run.user(2, "again");
    expect(utf8ByteLength(multibyte.payload.content as string)).toBe(2047);
    const p = plan(run.rows, { currentGeneration: 2, maxInputTokens: 1 });
    expect(p.keepStubbed).toEqual([atFloor.seq]);
    expect(p.messages[ascii.seq]).toBe(ascii.payload);
    expect(p.messages[multibyte.seq]).toBe(multibyte.payload);
    expect(p.pressureStubbed).toEqual([]);
    expect(p.fits).toBe(false);
    expect(atOrAboveFloor("😀".repeat(512), 2048)).toBe(true); // 4 bytes per surrogate pair
  });

  it("PROJ-008: pressure stubs oldest first until four remain or it fits", () => {
    const run = new RunBuilder();
    run.user(1, "old");
    const old = run.toolStep(1, "file_read", BIG);
    run.user(2, "now");
    const live = Array.from({ length: 8 }, (_, i) => run.toolStep(2, "file_read", result(3000, i)));
    const small = run.toolStep(2, "note_read", SMALL);
    const stubs = new StubCounts();
    const full = plan(run.rows, { currentGeneration: 2, stubCounts: stubs });
    expect(full.keepStubbed).toEqual([old.seq]);

    // Far over the cap: stubs the oldest live results until four remain, and still does not fit.
    const tight = plan(run.rows, { currentGeneration: 2, maxInputTokens: 10, stubCounts: stubs });
    expect(tight.pressureStubbed).toEqual(live.slice(0, 4).map((r) => r.seq));
    expect(tight.fits).toBe(false);
    expect(tight.messages[small.seq]).toBe(small.payload);

    // A cap that fits after two: stops there, oldest first.
    const saved = (r: StoredRow) => r.tokenCount - stubs.get(r).tokens;
    const cap = full.tokens - saved(live[0]!) - saved(live[1]!);
    const two = plan(run.rows, { currentGeneration: 2, maxInputTokens: cap, stubCounts: stubs });
    expect(two.pressureStubbed).toEqual([live[0]!.seq, live[1]!.seq]);
    expect(two.tokens).toBe(cap);
    expect(two.fits).toBe(true);
  });

  it("OP-CHAIN-2: the hand-off compares the count after the keep window and before pressure stubbing", () => {
    const run = new RunBuilder();
    run.user(1, "old");
    run.toolStep(1, "file_read", BIG);
    run.user(2, "now");
    for (let i = 0; i < 6; i++) run.toolStep(2, "file_read", result(3000, i));
    const stubs = new StubCounts();
    const full = plan(run.rows, { currentGeneration: 2, stubCounts: stubs });
    const pressed = plan(run.rows, { currentGeneration: 2, maxInputTokens: full.tokens - 1, stubCounts: stubs });
    expect(pressed.pressureStubbed.length).toBeGreaterThan(0);
    expect(pressed.tokens).toBeLessThan(full.tokens);
    // Pressure lowers the count sent, not the one the hand-off reads.
    expect(pressed.keepTokens).toBe(full.tokens);
    expect(full.keepTokens).toBe(full.tokens);
  });

  it("GEN-021: a count equal to the cap fits, one above does not", () => {
    const { rows } = threeGenerations();
    const base = plan(rows, { currentGeneration: 3 });
    expect(plan(rows, { currentGeneration: 3, maxInputTokens: base.tokens }).fits).toBe(true);
    const over = plan(rows, { currentGeneration: 3, maxInputTokens: base.tokens - 1 });
    expect(over.fits).toBe(false);
    expect(over.pressureStubbed).toEqual([]); // one live large result: fewer than four, nothing to shed
  });

  it("GEN-019: the planned count equals a full recount of the projected prompt", () => {
    const { rows } = threeGenerations();
    const p = plan(rows, { currentGeneration: 3, toolTokens: 321 });
    const recount = p.messages.reduce((n, m, i) => n + countRowTokens(m, i === 0 ? {} : rows[i]!.metadata), 0);
    expect(p.tokens).toBe(321 + PROMPT_OVERHEAD + recount);
  });

  it("PROJ-001/PROJ-003/PROJ-012: rows stay in order, none dropped, assistant tool_calls and texts unchanged", () => {
    const { rows } = threeGenerations();
    const before = structuredClone(rows);
    const p = plan(rows, { currentGeneration: 3, maxInputTokens: 1 });
    expect(p.messages).toHaveLength(rows.length);
    rows.forEach((row, i) => {
      const m = p.messages[i]!;
      expect(m.role).toBe(row.payload.role);
      if (row.payload.role !== "tool")
        expect(m).toBe(row.payload); // same object, no copy
      else if (m.role === "tool") expect(m.tool_call_id).toBe(row.payload.tool_call_id);
    });
    expect(rows).toEqual(before); // the stored transcript is untouched
  });

  it("PROJ-010: replay with the recorded pressure list rebuilds the exact messages and hash", async () => {
    const run = new RunBuilder();
    run.user(1, "first");
    run.toolStep(1, "file_read", BIG, { path: "a.ts", range: "1-90" });
    run.user(2, "second");
    for (let i = 0; i < 7; i++) run.toolStep(2, "shell", result(4000, i));
    const settings = { currentGeneration: 2, keep: 1, floor: STUB_FLOOR_BYTES };
    const sent = plan(run.rows, { ...settings, maxInputTokens: 3000 });
    expect(sent.pressureStubbed.length).toBeGreaterThan(0);
    const tools = [{ type: "function", function: { name: "shell" } }];

    const replayed = replayProjection({ rows: run.rows, ...settings, pressureStubbed: sent.pressureStubbed });
    expect(replayed).toEqual(sent.messages);
    expect(await promptHash(replayed, tools, "gpt-4o")).toBe(await promptHash(sent.messages, tools, "gpt-4o"));

    // Without the recorded list the keep window alone is not what was sent.
    const keepOnly = replayProjection({ rows: run.rows, ...settings, pressureStubbed: [] });
    expect(await promptHash(keepOnly, tools, "gpt-4o")).not.toBe(await promptHash(sent.messages, tools, "gpt-4o"));
    // A record that does not match the rows is an error, not a silent different prompt.
    expect(() => replayProjection({ rows: run.rows, ...settings, pressureStubbed: [1] })).toThrow(/seq 1/);
    expect(() => replayProjection({ rows: run.rows, ...settings, pressureStubbed: [999] })).toThrow(/999/);
  });

  it("PROJ-011: floor 0 stubs small results too", () => {
    const { rows, big, small } = threeGenerations();
    const p = plan(rows, { currentGeneration: 3, ...STUDIO_PROJECTION });
    expect(p.keepStubbed).toEqual([big[0]!.seq, small[0]!.seq, big[1]!.seq, small[1]!.seq]);
    expect(replayProjection({ rows, currentGeneration: 3, ...STUDIO_PROJECTION, pressureStubbed: [] })).toEqual(p.messages);
  });

  it("PROJ-004: keep must be a whole number of generations, at least 1", () => {
    const { rows } = threeGenerations();
    expect(() => plan(rows, { keep: 0 })).toThrow(RangeError);
    expect(() => plan([rows[1]!, rows[0]!])).toThrow(/seq order/);
  });

  it("ATT-004: imageRefs returns the image attachments of a user row for later hydration", () => {
    const run = new RunBuilder();
    const attachments = [
      { id: "i1", filename: "a.png", mime: "image/png", kind: "image" },
      { id: "f1", filename: "b.pdf", mime: "application/pdf", kind: "file" },
    ];
    const user = run.user(1, "", { attachments });
    expect(imageRefs(user).map((a) => a.id)).toEqual(["i1"]);
    expect(imageRefs(run.rows[0]!)).toEqual([]);
    expect(plan(run.rows).messages[user.seq]).toEqual({ role: "user", content: "" }); // payload as stored
  });
});
