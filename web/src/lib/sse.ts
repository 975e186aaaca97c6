/**
 * Pure Server-Sent Events logic of the console, free of I/O so it is unit-tested in
 * Node: the frame parser (the WHATWG event-stream format) and the seq de-duplication
 * that keeps a transcript free of repeats across reloads and reconnects.
 */

export interface SseEvent {
  /** `event:` field; "message" when the frame names none. */
  event: string;
  /** `data:` lines joined with "\n". */
  data: string;
  /** `id:` field of this frame, if it had one. */
  id?: string;
}

/**
 * An event read as its stream's documented event (`RunEvent`, `GuildEvent` or `TaskEvent`
 * of api-types, generated from the API document), its `data` parsed from JSON; null when
 * the data is not a JSON object. The event names and data shapes are the contract's, which
 * the API's tests hold the server to; a handler still ignores a name it does not know and
 * checks the values it keeps or navigates by.
 *
 * @example decodeEvent<RunEvent>({ event: "delta", data: '{"text":"Hi",…}' }) // { event: "delta", data: { text: "Hi", … } }
 */
export function decodeEvent<Stream extends { event: string; id?: string; data: unknown }>(event: SseEvent): Stream | null {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return null;
  return { event: event.event, data, ...(event.id !== undefined ? { id: event.id } : {}) } as Stream;
}

/**
 * Incremental parser: feed it decoded text as it arrives, in pieces of any size;
 * it returns the events completed by that piece. Comments (`: ping`) are dropped.
 *
 * @example
 *   const parser = new SseParser();
 *   parser.feed("event: delta\ndata: {\"te");   // []
 *   parser.feed("xt\":\"Hi\"}\n\n");           // [{ event: "delta", data: "{\"text\":\"Hi\"}" }]
 */
export class SseParser {
  private buffer = "";
  private eventType = "";
  private data: string[] = [];
  private id: string | undefined;
  /** The last `id:` seen on any frame, as an EventSource keeps it for Last-Event-ID. */
  lastEventId: string | undefined;

  feed(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone "\r" at the very end may be the first half of "\r\n": wait for more.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) out.push(event);
    }
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.eventType = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) {
      this.id = value;
      this.lastEventId = value;
    }
    return null;
  }

  private dispatch(): SseEvent | null {
    const event: SseEvent | null = this.data.length
      ? { event: this.eventType || "message", data: this.data.join("\n"), ...(this.id !== undefined ? { id: this.id } : {}) }
      : null;
    this.eventType = "";
    this.data = [];
    this.id = undefined;
    return event;
  }
}

/**
 * The rows in seq order with each seq once: rows already held win (committed rows
 * never change), so a replayed or re-fetched row is dropped.
 *
 * @example mergeRows([{ seq: 0 }, { seq: 1 }], [{ seq: 1 }, { seq: 2 }]) // seqs 0, 1, 2
 */
export function mergeRows<R extends { seq: number }>(held: R[], incoming: R[]): R[] {
  if (incoming.length === 0) return held;
  const seen = new Set(held.map((r) => r.seq));
  const added = incoming.filter((r) => {
    if (seen.has(r.seq)) return false;
    seen.add(r.seq);
    return true;
  });
  if (added.length === 0) return held;
  const last = held.at(-1)?.seq ?? -Infinity;
  // The common case, rows arriving in order after what is held: no sort.
  if (added.every((r, i) => r.seq > (i === 0 ? last : added[i - 1]!.seq))) return [...held, ...added];
  return [...held, ...added].sort((a, b) => a.seq - b.seq);
}

/** The highest seq held, or -1 (the API's "from the start"). */
export const lastSeq = (rows: Array<{ seq: number }>): number => rows.reduce((max, r) => Math.max(max, r.seq), -1);
