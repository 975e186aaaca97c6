import { describe, expect, it } from "vitest";
import type { GroupMessage } from "./api-types";
import { applyChatEvent, type ChatState, emptyChat, gapOf, nextGapPage, reading, settleRuns, withMessages } from "./group-chat";

const message = (seq: number, content = `m${seq}`): GroupMessage => ({
  seq,
  guild_id: "g1",
  author_kind: "operator",
  author_agent_id: null,
  author_name: "Operator",
  content,
  tagged: [],
  depth: 0,
  created_at: "2026-01-01T00:00:00Z",
});
const ev = (event: string, data: unknown, id?: string) => ({ event, data: JSON.stringify(data), ...(id ? { id } : {}) });
const delivery = (agent: string, run: string, state: "started" | "completed", through = 3) =>
  ev("delivery", { agent_id: agent, agent_name: agent.toUpperCase(), run_id: run, through_seq: through, state });

describe("group chat state", () => {
  it("history pages, the posted message and the live stream overlap: each seq shows once, in order", () => {
    let s: ChatState = withMessages(emptyChat(), [message(4), message(5)]);
    s = withMessages(s, [message(6)]); // the 201 of a post
    s = applyChatEvent(s, ev("message", message(6), "6")); // the same row, live
    s = applyChatEvent(s, ev("message", message(7), "7"));
    s = withMessages(s, [message(2), message(3), message(4)]); // an older page, scrolling back
    s = applyChatEvent(s, ev("message", message(5, "replayed after a reconnect"), "5"));
    expect(s.messages.map((m) => m.seq)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(s.messages.find((m) => m.seq === 5)!.content).toBe("m5");
  });

  it("a message already held leaves the state as it was; status, unknown events and bad data are ignored", () => {
    const s = withMessages(emptyChat(), [message(1)]);
    expect(applyChatEvent(s, ev("message", message(1)))).toBe(s);
    expect(applyChatEvent(s, ev("status", { guild_id: "g1", reading: [] }))).toBe(s);
    expect(applyChatEvent(s, ev("ping", {}))).toBe(s);
    expect(applyChatEvent(s, { event: "message", data: "{not json" })).toBe(s);
    expect(applyChatEvent(s, ev("delivery", { agent_id: "a", state: "later" }))).toBe(s);
  });

  it("delivery events tell who is reading now; a late completed event of an older run does not end a newer one", () => {
    let s = applyChatEvent(emptyChat(), delivery("a", "r1", "started"));
    s = applyChatEvent(s, delivery("b", "r2", "started"));
    expect(reading(s).map((d) => [d.agent_name, d.run_id])).toEqual([
      ["A", "r1"],
      ["B", "r2"],
    ]);
    s = applyChatEvent(s, delivery("a", "r1", "completed"));
    expect(reading(s).map((d) => d.agent_id)).toEqual(["b"]);
    expect(s.deliveries.find((d) => d.agent_id === "a")!.state).toBe("completed");
    s = applyChatEvent(s, delivery("a", "r3", "started", 9));
    s = applyChatEvent(s, delivery("a", "r1", "completed"));
    expect(reading(s).map((d) => d.run_id)).toEqual(["r2", "r3"]);
  });

  it("runs found finished after a reconnect stop counting as reading", () => {
    let s = applyChatEvent(emptyChat(), delivery("a", "r1", "started"));
    s = applyChatEvent(s, delivery("b", "r2", "started"));
    s = settleRuns(s, ["r2"]);
    expect(reading(s).map((d) => d.run_id)).toEqual(["r1"]);
    expect(settleRuns(s, ["r9"])).toBe(s);
  });

  it("a status on (re)connect names the agents already reading", () => {
    const started = { agent_id: "a", agent_name: "A", run_id: "r1", through_seq: 4, state: "started" };
    const s = applyChatEvent(emptyChat(), ev("status", { guild_id: "g1", reading: [started, { agent_id: 5 }] }));
    expect(reading(s).map((d) => [d.agent_name, d.run_id, d.through_seq])).toEqual([["A", "r1", 4]]);
  });

  it("SSE-003: a gap event names the rows the stream skipped; before_seq pages read back from resumes_at_seq until after_seq is reached", () => {
    const gap = gapOf(ev("gap", { after_seq: 5, resumes_at_seq: 400 }))!;
    expect(gap).toEqual({ after_seq: 5, resumes_at_seq: 400 });
    expect(gapOf(ev("message", message(7), "7"))).toBeNull();
    expect(gapOf({ event: "gap", data: "not json" })).toBeNull();
    expect(gapOf(ev("gap", { after_seq: 5, resumes_at_seq: 6 }))).toBeNull(); // nothing skipped
    const page = (from: number, to: number, hasMore = true) => ({
      data: Array.from({ length: to - from + 1 }, (_, i) => message(from + i)),
      has_more: hasMore,
    });
    expect(nextGapPage(gap, page(200, 399))).toBe(200);
    expect(nextGapPage(gap, page(1, 199))).toBeNull(); // reached past after_seq
    expect(nextGapPage(gap, page(6, 199))).toBeNull(); // the page starts right after after_seq
    expect(nextGapPage(gap, page(50, 199, false))).toBeNull(); // nothing older
    // The gap's rows merge in among the held ones, each seq once.
    let s = withMessages(emptyChat(), [message(4), message(5), message(400)]);
    s = withMessages(s, page(200, 399).data);
    s = withMessages(s, page(6, 199).data);
    expect(s.messages.map((m) => m.seq)).toEqual(Array.from({ length: 397 }, (_, i) => 4 + i));
  });
});
