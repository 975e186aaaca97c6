import { describe, expect, it } from "vitest";
import type { Row } from "./api-types";
import { applyEvent, emptyLiveRun, type LiveRun, withRows } from "./live-run";

const row = (seq: number, role: Row["role"], generation: number | null = 1): Row => ({
  seq,
  generation,
  role,
  payload: role === "tool" ? { role, tool_call_id: "call_1", content: `r${seq}` } : { role, content: `r${seq}` },
  metadata: {},
  cost_usd: null,
  created_at: "2026-01-01T00:00:00Z",
});
const ev = (event: string, data: unknown) => ({ event, data: JSON.stringify(data) });

describe("live run state", () => {
  it("UI-008: deltas build a draft that the committed assistant row replaces", () => {
    let s: LiveRun = withRows(emptyLiveRun(), [row(0, "system", null), row(1, "user")]);
    s = applyEvent(s, ev("status", { generating: true, status: "active" }));
    s = applyEvent(s, ev("delta", { generation: 1, kind: "reasoning", text: "thinking " }));
    s = applyEvent(s, ev("delta", { generation: 1, kind: "content", text: "Hel" }));
    s = applyEvent(s, ev("delta", { generation: 1, kind: "content", text: "lo" }));
    expect(s.draft).toEqual({ generation: 1, content: "Hello", reasoning: "thinking " });
    s = applyEvent(s, { event: "message", id: "2", data: JSON.stringify(row(2, "assistant")) });
    expect(s.draft).toBeNull();
    expect(s.rows.map((r) => r.seq)).toEqual([0, 1, 2]);
  });

  it("UI-007: a row replayed on reconnect is not added twice", () => {
    let s = withRows(emptyLiveRun(), [row(0, "system", null), row(1, "user"), row(2, "assistant")]);
    const before = s;
    s = applyEvent(s, { event: "message", id: "2", data: JSON.stringify(row(2, "assistant")) });
    expect(s).toBe(before);
  });

  it("a status that stops generating drops the draft; errors are kept once", () => {
    let s = applyEvent(emptyLiveRun(), ev("delta", { generation: 2, kind: "content", text: "partial" }));
    expect(s.generating).toBe(true);
    s = applyEvent(s, ev("error", { code: "generation.cancelled", message: "The operator cancelled the generation", generation: 2 }));
    s = applyEvent(s, ev("error", { code: "generation.cancelled", message: "The operator cancelled the generation", generation: 2 }));
    s = applyEvent(s, ev("status", { generating: false, status: "active" }));
    expect(s).toMatchObject({ draft: null, generating: false, status: "active" });
    expect(s.errors).toEqual([{ code: "generation.cancelled", message: "The operator cancelled the generation", generation: 2 }]);
  });

  it("ignores unknown events and unreadable data", () => {
    const s = emptyLiveRun();
    expect(applyEvent(s, { event: "run.continued", data: "{}" })).toBe(s);
    expect(applyEvent(s, { event: "message", data: "not json" })).toBe(s);
  });
});
