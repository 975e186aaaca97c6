import { describe, expect, it } from "vitest";
import { deliveryDepth, groupChatInfo, groupChatInfoMessage, MAX_WAKE_DEPTH, type PublicRow, postDepth, wakes } from "./wake";

const row = (seq: number, over: Partial<PublicRow> = {}): PublicRow => ({
  seq,
  authorKind: "operator",
  authorAgentId: null,
  authorName: "operator",
  content: `row ${seq}`,
  tagged: [],
  depth: 0,
  createdAt: new Date(Date.UTC(2026, 0, 1, 9, 0, seq)),
  ...over,
});
const byAgent = (seq: number, agentId: string, depth: number, over: Partial<PublicRow> = {}) =>
  row(seq, { authorKind: "agent", authorAgentId: agentId, authorName: agentId.toUpperCase(), depth, ...over });

describe("who a public row wakes", () => {
  it("OP-GROUP-1: an operator post wakes every agent; an agent's own post never wakes it", () => {
    expect(wakes(row(1), "a")).toBe(true);
    expect(wakes(byAgent(2, "a", 1), "a")).toBe(false);
    expect(wakes(byAgent(2, "a", 1), "b")).toBe(true);
  });

  it("GROUP-011 (ping-pong guard): rows deeper than MAX_WAKE_DEPTH wake nobody, and each reply in a group run is one hop deeper", () => {
    expect(wakes(byAgent(3, "a", MAX_WAKE_DEPTH), "b")).toBe(true);
    expect(wakes(byAgent(4, "a", MAX_WAKE_DEPTH + 1), "b")).toBe(false);
    expect(postDepth(undefined)).toBe(0);
    expect(postDepth(0)).toBe(1);
    // Two agents answering each other: depth grows by one per reply, so the exchange ends.
    let depth = 0;
    let replies = 0;
    while (wakes({ depth, authorAgentId: replies % 2 ? "a" : "b" }, replies % 2 ? "b" : "a")) {
      depth = postDepth(depth);
      replies += 1;
    }
    expect(replies).toBe(MAX_WAKE_DEPTH + 1);
  });

  it("OP-GROUP-1: a delivery's depth is the shallowest row that woke it; none when no row wakes the agent", () => {
    expect(deliveryDepth([byAgent(1, "b", 2), row(2), byAgent(3, "b", 1)], "a")).toBe(0);
    expect(deliveryDepth([byAgent(1, "a", 0), byAgent(2, "b", 3)], "a")).toBeNull();
    expect(deliveryDepth([], "a")).toBeNull();
  });
});

describe("the Group Chat info wake", () => {
  it("GROUP-002 / OP-GROUP-2: latestMessage is the newest row not by the agent; youWereTagged is any tag of it since the cursor", () => {
    const rows = [row(4, { tagged: ["a"] }), byAgent(5, "b", 1), byAgent(6, "a", 1)];
    expect(groupChatInfo(rows, "a")).toEqual({
      latestMessage: { seq: 5, author: "B", text: "row 5", at: "2026-01-01T09:00:05.000Z" },
      youWereTagged: true,
    });
    expect(groupChatInfo(rows, "b").youWereTagged).toBe(false);
    // Its own row is the only one: still named, so the wake is never empty.
    expect(groupChatInfo([byAgent(7, "a", 0)], "a").latestMessage?.seq).toBe(7);
  });

  it("GROUP-002: the message text is stable JSON under a fixed heading", () => {
    const text = groupChatInfoMessage(groupChatInfo([row(1, { content: "hi" })], "a"));
    expect(text).toBe(
      `Group Chat info: {\n  "latestMessage": {\n    "seq": 1,\n    "author": "operator",\n    "text": "hi",\n    "at": "2026-01-01T09:00:01.000Z"\n  },\n  "youWereTagged": false\n}`,
    );
  });
});
