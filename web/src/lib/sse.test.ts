import { describe, expect, it } from "vitest";
import { lastSeq, mergeRows, SseParser } from "./sse";

describe("SseParser", () => {
  it("parses frames split anywhere, with event, id and data fields", () => {
    const parser = new SseParser();
    const text = 'event: message\nid: 3\ndata: {"seq":3}\n\nevent: delta\ndata: {"text":"Hel"}\n\n';
    const events = [];
    for (const ch of text) events.push(...parser.feed(ch));
    expect(events).toEqual([
      { event: "message", id: "3", data: '{"seq":3}' },
      { event: "delta", data: '{"text":"Hel"}' },
    ]);
    expect(parser.lastEventId).toBe("3");
  });

  it("drops comments (keep-alive pings), joins data lines and defaults the event to message", () => {
    const parser = new SseParser();
    expect(parser.feed(": ping\n\ndata: a\ndata: b\n\n")).toEqual([{ event: "message", data: "a\nb" }]);
  });

  it("accepts CRLF and CR line ends, also a CRLF split across chunks", () => {
    const parser = new SseParser();
    expect(parser.feed("event: status\r")).toEqual([]);
    expect(parser.feed("\ndata: x\r\n\r")).toEqual([]);
    expect(parser.feed("\ndata: y\r\r\n")).toEqual([
      { event: "status", data: "x" },
      { event: "message", data: "y" },
    ]);
  });

  it("keeps a value's spaces after the first one and dispatches nothing for a frame without data", () => {
    const parser = new SseParser();
    expect(parser.feed("event: status\n\ndata:  two spaces\n\n")).toEqual([{ event: "message", data: " two spaces" }]);
  });
});

describe("mergeRows (de-duplication by seq)", () => {
  const row = (seq: number, text = `row ${seq}`) => ({ seq, text });

  it("UI-007: rows replayed after a reconnect or reload are shown once, in seq order", () => {
    const held = [row(0), row(1), row(2)];
    const merged = mergeRows(held, [row(2, "again"), row(3), row(1, "again"), row(4)]);
    expect(merged.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(merged[2]!.text).toBe("row 2");
  });

  it("sorts rows that arrive out of order and drops repeats within one batch", () => {
    expect(mergeRows([row(0), row(5)], [row(3), row(3), row(1)]).map((r) => r.seq)).toEqual([0, 1, 3, 5]);
  });

  it("returns the same array when nothing is new, so a view need not re-render", () => {
    const held = [row(0)];
    expect(mergeRows(held, [row(0)])).toBe(held);
    expect(mergeRows(held, [])).toBe(held);
  });

  it("lastSeq is -1 for no rows, else the highest seq", () => {
    expect(lastSeq([])).toBe(-1);
    expect(lastSeq([row(0), row(7), row(3)])).toBe(7);
  });
});
