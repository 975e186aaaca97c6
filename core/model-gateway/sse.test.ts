import { describe, expect, it } from "vitest";
import { SseReader } from "./sse";

describe("server-sent events read from pieces", () => {
  it("reads data and event fields, skipping comments and other fields, joining an event's data lines", () => {
    const sse = new SseReader();
    expect(sse.push(': OPENROUTER PROCESSING\n\nid: 1\nretry: 10\nevent: message_start\ndata: {"a":1}\n\ndata:x\ndata: y\n\n')).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { event: null, data: "x\ny" },
    ]);
    expect(sse.push("event: lonely\n\n")).toEqual([]);
    expect(sse.push("data: after\n\n")).toEqual([{ event: null, data: "after" }]);
  });

  it("reads LF, CRLF and CR line ends, a CRLF cut between its two halves included", () => {
    const sse = new SseReader();
    expect(sse.push("data: a\r")).toEqual([]);
    // The CR last is held: it may be the half of a CRLF that ends the blank line.
    expect(sse.push("\n\r")).toEqual([]);
    expect(sse.push("\ndata: b\r\rdata: c\n\n")).toEqual([
      { event: null, data: "a" },
      { event: null, data: "b" },
      { event: null, data: "c" },
    ]);
  });

  it("reads bytes cut inside a UTF-8 character, and drops a leading byte order mark", () => {
    const bytes = new TextEncoder().encode("\ufeffdata: café ✓\n\n");
    const sse = new SseReader();
    const events = [];
    for (let i = 0; i < bytes.length; i++) events.push(...sse.push(bytes.subarray(i, i + 1)));
    expect(events).toEqual([{ event: null, data: "café ✓" }]);
    expect(new SseReader().push("\ufeffdata: x\n\n")).toEqual([{ event: null, data: "x" }]);
  });

  it("hands out at the end an event the stream never closed with a blank line, and nothing after", () => {
    const sse = new SseReader();
    expect(sse.push('data: {"n":1}\n\ndata: [DONE]')).toEqual([{ event: null, data: '{"n":1}' }]);
    expect(sse.end()).toEqual([{ event: null, data: "[DONE]" }]);
    expect(sse.push("data: late\n\n")).toEqual([]);
    expect(sse.end()).toEqual([]);
  });
});
