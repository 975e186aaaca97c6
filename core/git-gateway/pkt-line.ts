/**
 * git's pkt-line framing (four hex digits of length, the length counting themselves; `0000`
 * a flush) and the command section of a receive-pack request: `<old> <new> <ref>\0<caps>`,
 * more commands, a flush, push options when asked for, then the pack. Only the section is
 * read; what follows stays in the stream for the caller to forward.
 */

/** git's own limit of one pkt-line, its four length digits included. */
export const MAX_PKT_LENGTH = 65520;
/** The command section's cap: a push of a task updates two refs. */
export const MAX_SECTION_BYTES = 64 * 1024;
export const ZERO_ID = "0".repeat(40);

export class PktError extends Error {
  override readonly name = "PktError";
}

const encoder = new TextEncoder();

/** One pkt-line holding `payload`. */
export function pkt(payload: string | Uint8Array): Uint8Array {
  const bytes = typeof payload === "string" ? encoder.encode(payload) : payload;
  if (bytes.length + 4 > MAX_PKT_LENGTH) throw new PktError("pkt-line too long");
  const out = new Uint8Array(bytes.length + 4);
  out.set(encoder.encode((bytes.length + 4).toString(16).padStart(4, "0")), 0);
  out.set(bytes, 4);
  return out;
}

export const FLUSH = encoder.encode("0000");

/** Reads pkt-lines from a byte stream, keeping the raw bytes it consumed to forward them. */
export class PktReader {
  #buf = new Uint8Array(0);
  #at = 0;
  #consumed = 0;
  #ended = false;
  readonly #raw: Uint8Array[] = [];

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly cap = MAX_SECTION_BYTES,
  ) {}

  async #fill(n: number): Promise<boolean> {
    while (this.#buf.length - this.#at < n) {
      if (this.#ended) return false;
      const { done, value } = await this.reader.read();
      if (done) {
        this.#ended = true;
        continue;
      }
      const joined = new Uint8Array(this.#buf.length - this.#at + value.length);
      joined.set(this.#buf.subarray(this.#at), 0);
      joined.set(value, this.#buf.length - this.#at);
      this.#buf = joined;
      this.#at = 0;
    }
    return true;
  }

  /** The next pkt-line's payload, null for a flush; throws PktError for a malformed or missing one. */
  async next(): Promise<Uint8Array | null> {
    if (!(await this.#fill(4))) throw new PktError("the request ended inside the command list");
    const digits = new TextDecoder().decode(this.#buf.subarray(this.#at, this.#at + 4));
    if (!/^[0-9a-f]{4}$/.test(digits)) throw new PktError("malformed pkt-line length");
    const length = Number.parseInt(digits, 16);
    if (length !== 0 && (length < 4 || length > MAX_PKT_LENGTH)) throw new PktError("malformed pkt-line length");
    const total = length === 0 ? 4 : length;
    if (this.#consumed + total > this.cap) throw new PktError("the command list is too large");
    if (!(await this.#fill(total))) throw new PktError("the request ended inside the command list");
    const line = this.#buf.subarray(this.#at, this.#at + total);
    this.#raw.push(line);
    this.#at += total;
    this.#consumed += total;
    return length === 0 ? null : line.subarray(4);
  }

  /** The bytes consumed so far, exactly as read. */
  raw(): Uint8Array[] {
    return this.#raw;
  }

  /** Bytes read from the stream past the last pkt-line. */
  rest(): Uint8Array {
    return this.#buf.subarray(this.#at);
  }
}

export interface Command {
  old: string;
  new: string;
  ref: string;
}

export interface CommandSection {
  commands: Command[];
  capabilities: string[];
  /** Bytes of the section as received (commands, flush, push options), forwarded unchanged. */
  raw: Uint8Array[];
  /** What the stream had already given past the section: the pack's first bytes. */
  rest: Uint8Array;
}

const COMMAND = /^([0-9a-f]{40}) ([0-9a-f]{40}) ([^\s\0]+)$/;
const SHALLOW = /^shallow [0-9a-f]{40}$/;

/**
 * Reads the command section of a receive-pack request (shallow lines, commands, flush, and
 * push options when the capabilities ask for them). Throws PktError for anything malformed:
 * the caller refuses the push.
 */
export async function readCommandSection(reader: ReadableStreamDefaultReader<Uint8Array>, cap = MAX_SECTION_BYTES): Promise<CommandSection> {
  const pkts = new PktReader(reader, cap);
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const commands: Command[] = [];
  let capabilities: string[] = [];
  for (;;) {
    const payload = await pkts.next();
    if (payload === null) break;
    let text: string;
    try {
      text = decoder.decode(payload).replace(/\n$/, "");
    } catch {
      throw new PktError("a command is not UTF-8");
    }
    if (commands.length === 0 && SHALLOW.test(text)) continue;
    const nul = text.indexOf("\0");
    if (nul !== -1) {
      if (commands.length !== 0) throw new PktError("capabilities after the first command");
      capabilities = text
        .slice(nul + 1)
        .split(" ")
        .filter(Boolean);
      text = text.slice(0, nul);
    }
    if (text.startsWith("push-cert")) throw new PktError("signed pushes are not accepted");
    const match = COMMAND.exec(text);
    if (!match) throw new PktError("malformed command");
    commands.push({ old: match[1]!, new: match[2]!, ref: match[3]! });
  }
  if (commands.length && capabilities.includes("push-options")) {
    while ((await pkts.next()) !== null) {}
  }
  return { commands, capabilities, raw: pkts.raw(), rest: pkts.rest() };
}
