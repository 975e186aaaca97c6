/**
 * Server-sent events read from a byte or text stream cut at arbitrary places: a Chat
 * Completions stream (`data: {chunk}` … `data: [DONE]`) and an Anthropic Messages stream
 * (`event: <type>` + `data: {event}`) alike. Lines end in LF, CRLF or CR, even when the cut
 * falls between CR and LF or inside a UTF-8 character; comments (`: keep-alive`) are skipped;
 * the `data` lines of one event are joined with LF, as the SSE format says.
 *
 * One leniency: at `end()` an event the stream did not close with a blank line is still
 * handed out (providers end with `data: [DONE]` and no blank line), where the format would
 * drop it. The reader keeps at most one unfinished event: the caller bounds the stream's bytes.
 *
 * @example const sse = new SseReader();
 * sse.push("data: {\"a\":1}\n\nda"); // [{ event: null, data: "{\"a\":1}" }]
 * sse.push("ta: [DONE]\n\n");         // [{ event: null, data: "[DONE]" }]
 */

export interface SseEvent {
  /** The `event:` field, null when the event named none. */
  event: string | null;
  data: string;
}

/** What a Chat Completions stream sends last, in place of a chunk. */
export const CHAT_STREAM_DONE = "[DONE]";

export class SseReader {
  readonly #decoder = new TextDecoder("utf-8");
  #buffer = "";
  /** How much of the buffer holds no line end, so a long line is not scanned again on each push. */
  #scanned = 0;
  #started = false;
  #event: string | null = null;
  #data: string[] = [];
  #ended = false;

  /** The events a piece of the stream completes. */
  push(chunk: string | Uint8Array): SseEvent[] {
    if (this.#ended) return [];
    this.#buffer += typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    return this.#read(false);
  }

  /** The stream ended: its last line and last event, even without the blank line that closes it. */
  end(): SseEvent[] {
    if (this.#ended) return [];
    this.#buffer += this.#decoder.decode();
    const events = this.#read(true);
    this.#ended = true;
    return events;
  }

  #read(final: boolean): SseEvent[] {
    if (!this.#started && this.#buffer.length > 0) {
      this.#started = true;
      if (this.#buffer.charCodeAt(0) === 0xfeff) this.#buffer = this.#buffer.slice(1);
    }
    const events: SseEvent[] = [];
    const buffer = this.#buffer;
    let start = 0;
    for (let i = this.#scanned; i < buffer.length; i++) {
      const code = buffer.charCodeAt(i);
      if (code !== 0x0a && code !== 0x0d) continue;
      // A CR last in the buffer may be the first half of a CRLF: wait for the next piece.
      if (code === 0x0d && i + 1 === buffer.length && !final) break;
      this.#line(buffer.slice(start, i), events);
      if (code === 0x0d && buffer.charCodeAt(i + 1) === 0x0a) i++;
      start = i + 1;
    }
    this.#buffer = buffer.slice(start);
    this.#scanned = Math.max(0, this.#buffer.length - (this.#buffer.endsWith("\r") ? 1 : 0));
    if (final) {
      if (this.#buffer.length > 0) this.#line(this.#buffer, events);
      this.#buffer = "";
      this.#line("", events);
    }
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.#data.length > 0) events.push({ event: this.#event, data: this.#data.join("\n") });
      this.#event = null;
      this.#data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
  }
}
