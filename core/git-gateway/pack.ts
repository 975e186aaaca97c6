/**
 * Reads the commits of a pushed pack as it streams past (git's pack format v2/v3): every
 * object is inflated to find where it ends, only commits (and deltas whose base is a commit
 * of the pack) are kept. A delta named by its base's id (REF_DELTA; git sends offsets when the
 * forge takes them) is kept while small and resolved once the commits' ids are known; one
 * against a base outside the pack (a thin pack) stays unknown, and the walk treats whatever
 * it might have been as outside the pack. Objects arrive in chunks; an object cut by a chunk's end is read again
 * once twice as many bytes wait, so a large object costs about twice its inflation.
 */
import { InflateError, inflateZlib, NeedInput } from "./inflate";

export class PackError extends Error {
  override readonly name = "PackError";
}

const COMMIT = 1;
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** What is known of an object at an offset besides a commit's index. */
const OTHER = -1;
const UNKNOWN = -2;

/** A commit larger than this is refused: git's own are kilobytes. */
export const MAX_COMMIT_BYTES = 1024 * 1024;
/** REF_DELTAs kept for resolution: each at most this large, all together at most the second. */
const MAX_REF_DELTA_BYTES = 64 * 1024;
const MAX_REF_DELTAS_BYTES = 8 * 1024 * 1024;

export class PackReader {
  #chunks: Uint8Array[] = [];
  #pendingBytes = 0;
  #buf = new Uint8Array(0);
  /** The pack offset of `#buf[0]`. */
  #offset = 0;
  #retryAt = 12;
  #stage: "header" | "objects" | "trailer" | "done" = "header";
  #objectsLeft = 0;
  /** Offset → index into `bodies` (a commit), OTHER or UNKNOWN. */
  #kinds = new Map<number, number>();
  #ids: string[] = [];
  /** REF_DELTAs not yet resolved: base id, delta data, their own offset. */
  #refDeltas: Array<{ base: string; delta: Uint8Array; offset: number }> = [];
  #refDeltaBytes = 0;
  /** The raw bodies of the pack's commits, in pack order. */
  readonly bodies: Uint8Array[] = [];
  /** Objects that are not commits have been read since the last commit. */
  pastCommits = false;

  get done(): boolean {
    return this.#stage === "done";
  }

  /** Takes the next bytes of the pack; throws PackError when they are not a valid pack. */
  push(chunk: Uint8Array): void {
    if (this.#stage === "done") {
      if (chunk.length) throw new PackError("data after the pack's end");
      return;
    }
    this.#chunks.push(chunk);
    this.#pendingBytes += chunk.length;
    if (this.#buf.length + this.#pendingBytes >= this.#retryAt) this.#advance();
  }

  /** The pack's bytes have all arrived: throws PackError unless it was whole. */
  finish(): void {
    if (this.#stage !== "done") this.#advance();
    if (this.#stage !== "done") throw new PackError("the pack is truncated");
  }

  #advance(): void {
    if (this.#pendingBytes) {
      const joined = new Uint8Array(this.#buf.length + this.#pendingBytes);
      joined.set(this.#buf, 0);
      let at = this.#buf.length;
      for (const chunk of this.#chunks) {
        joined.set(chunk, at);
        at += chunk.length;
      }
      this.#buf = joined;
      this.#chunks = [];
      this.#pendingBytes = 0;
    }
    let cursor = 0;
    try {
      for (;;) {
        const next = this.#step(cursor);
        if (next === cursor) break;
        cursor = next;
      }
      this.#retryAt = 0;
    } catch (error) {
      if (error instanceof InflateError) throw new PackError(`an object of the pack is corrupt (${error.message})`);
      if (!(error instanceof NeedInput)) throw error;
      this.#retryAt = Math.max(2 * (this.#buf.length - cursor), 64);
    }
    this.#buf = this.#buf.slice(cursor);
    this.#offset += cursor;
    if (this.#stage === "done" && this.#buf.length) throw new PackError("data after the pack's end");
  }

  /** Reads one unit at `cursor`; → the cursor after it (the same when nothing is left to read). */
  #step(cursor: number): number {
    const buf = this.#buf;
    if (this.#stage === "header") {
      if (buf.length - cursor < 12) throw new NeedInput("pack header");
      if (buf[cursor] !== 0x50 || buf[cursor + 1] !== 0x41 || buf[cursor + 2] !== 0x43 || buf[cursor + 3] !== 0x4b) throw new PackError("not a pack");
      const version = readU32(buf, cursor + 4);
      if (version !== 2 && version !== 3) throw new PackError(`pack version ${version} is not supported`);
      this.#objectsLeft = readU32(buf, cursor + 8);
      this.#stage = this.#objectsLeft ? "objects" : "trailer";
      return cursor + 12;
    }
    if (this.#stage === "trailer") {
      if (buf.length - cursor < 20) throw new NeedInput("pack trailer");
      this.#stage = "done";
      return cursor + 20;
    }
    if (this.#stage === "done") return cursor;
    const next = this.#object(cursor);
    if (--this.#objectsLeft === 0) this.#stage = "trailer";
    return next;
  }

  #object(start: number): number {
    const buf = this.#buf;
    const offset = this.#offset + start;
    let at = start;
    const byte = () => {
      if (at >= buf.length) throw new NeedInput("object header");
      return buf[at++]!;
    };
    let c = byte();
    const type = (c >> 4) & 7;
    let size = c & 15;
    for (let shift = 4; c & 0x80; shift += 7) {
      if (shift > 49) throw new PackError("an object's size is too large");
      c = byte();
      size += (c & 0x7f) * 2 ** shift;
    }
    let baseKind = OTHER;
    let baseId = "";
    if (type === OFS_DELTA) {
      c = byte();
      let distance = c & 0x7f;
      while (c & 0x80) {
        if (distance > 2 ** 45) throw new PackError("a delta's base offset is too large");
        c = byte();
        distance = (distance + 1) * 128 + (c & 0x7f);
      }
      const kind = this.#kinds.get(offset - distance);
      if (kind === undefined) throw new PackError("a delta's base is not an object of the pack");
      baseKind = kind;
    } else if (type === REF_DELTA) {
      if (at + 20 > buf.length) throw new NeedInput("delta base id");
      baseId = Array.from(buf.subarray(at, at + 20), (b) => b.toString(16).padStart(2, "0")).join("");
      at += 20;
      baseKind = UNKNOWN;
    } else if (type < 1 || type > 4) {
      throw new PackError(`unknown object type ${type}`);
    }
    const keepRef = type === REF_DELTA && size <= MAX_REF_DELTA_BYTES && this.#refDeltaBytes + size <= MAX_REF_DELTAS_BYTES;
    const keep = type === COMMIT || (type === OFS_DELTA && baseKind >= 0) || keepRef;
    if (keep && size > MAX_COMMIT_BYTES) throw new PackError("a commit of the pack is too large");
    const { end, data } = inflateZlib(buf, at, buf.length, size, keep);
    let kind: number;
    if (type === COMMIT) kind = this.#commit(data!);
    else if (type === OFS_DELTA) kind = baseKind >= 0 ? this.#commit(applyDelta(this.bodies[baseKind]!, data!)) : baseKind;
    else kind = type === REF_DELTA ? UNKNOWN : OTHER;
    if (keepRef) {
      this.#refDeltas.push({ base: baseId, delta: data!, offset });
      this.#refDeltaBytes += size;
    }
    this.#kinds.set(offset, kind);
    if (kind < 0 && this.bodies.length) this.pastCommits = true;
    return end;
  }

  #commit(body: Uint8Array): number {
    this.bodies.push(body);
    this.pastCommits = false;
    return this.bodies.length - 1;
  }

  /** The pack's commits so far: id → parent ids. */
  async commits(): Promise<Map<string, string[]>> {
    for (;;) {
      for (let i = this.#ids.length; i < this.bodies.length; i++) this.#ids.push(await commitId(this.bodies[i]!));
      const index = new Map(this.#ids.map((id, i) => [id, i]));
      const resolvable = this.#refDeltas.filter((d) => index.has(d.base));
      if (!resolvable.length) break;
      this.#refDeltas = this.#refDeltas.filter((d) => !index.has(d.base));
      for (const { base, delta, offset } of resolvable) this.#kinds.set(offset, this.#commit(applyDelta(this.bodies[index.get(base)!]!, delta)));
    }
    return new Map(this.bodies.map((body, i) => [this.#ids[i]!, commitParents(body)]));
  }
}

function readU32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) >>> 0) + (buf[at + 1]! << 16) + (buf[at + 2]! << 8) + buf[at + 3]!;
}

/** git's delta format: base size, result size, then copy (from the base) and insert instructions. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= delta.length || shift > 49) throw new PackError("a delta is corrupt");
      const c = delta[at++]!;
      value += (c & 0x7f) * 2 ** shift;
      if (!(c & 0x80)) return value;
    }
  };
  if (varint() !== base.length) throw new PackError("a delta does not fit its base");
  const size = varint();
  if (size > MAX_COMMIT_BYTES) throw new PackError("a commit of the pack is too large");
  const out = new Uint8Array(size);
  let written = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += (delta[at++] ?? 0) * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (0x10 << i)) length += (delta[at++] ?? 0) * 2 ** (8 * i);
      if (length === 0) length = 0x10000;
      if (at > delta.length || offset + length > base.length || written + length > size) throw new PackError("a delta is corrupt");
      out.set(base.subarray(offset, offset + length), written);
      written += length;
    } else if (op) {
      if (at + op > delta.length || written + op > size) throw new PackError("a delta is corrupt");
      out.set(delta.subarray(at, at + op), written);
      at += op;
      written += op;
    } else {
      throw new PackError("a delta is corrupt");
    }
  }
  if (written !== size) throw new PackError("a delta is corrupt");
  return out;
}

/** A commit's object id: SHA-1 of `commit <size>\0<body>`. */
export async function commitId(body: Uint8Array): Promise<string> {
  const head = new TextEncoder().encode(`commit ${body.length}\0`);
  const whole = new Uint8Array(head.length + body.length);
  whole.set(head, 0);
  whole.set(body, head.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", whole));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The `parent` lines of a commit's header (which ends at the first blank line). */
export function commitParents(body: Uint8Array): string[] {
  const parents: string[] = [];
  let at = 0;
  while (at < body.length) {
    let end = body.indexOf(0x0a, at);
    if (end === -1) end = body.length;
    if (end === at) break;
    const line = new TextDecoder("latin1").decode(body.subarray(at, Math.min(end, at + 48)));
    const match = /^parent ([0-9a-f]{40})$/.exec(line);
    if (match) parents.push(match[1]!);
    at = end + 1;
  }
  return parents;
}
