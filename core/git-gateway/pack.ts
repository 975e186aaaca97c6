/**
 * Reads the commits of a pushed pack as it streams past (git's pack format v2/v3). Each
 * object's zlib stream is inflated as its bytes arrive (pako's zlib, which says where a
 * stream ends: a pack lays its objects end to end with no lengths between them), so nothing
 * but a header's few bytes waits for the next chunk. Only commits are kept, with deltas whose
 * base is a commit of the pack; a delta named by its base's id (REF_DELTA) is kept while
 * small and resolved once the commits' ids are known, and one against a base outside the
 * pack (a thin pack) stays unknown: the walk treats whatever it might have been as outside.
 *
 * A push is someone else's bytes in an isolate other tenants share, so what reading it may
 * cost is capped (PACK_LIMITS): past a cap the reader throws a PackError that git prints.
 */
import { Z_BUF_ERROR, Z_NO_FLUSH, Z_OK, Z_STREAM_END, ZStream, zlibInflate, zlibInflateInit2, zlibInflateReset } from "pako";
import { applyDelta, commitId, commitParents, MAX_COMMIT_BYTES, PackError, PackLimitError } from "./commit";

/**
 * What one push's pack may cost to read before the check is decided. A task's push sends its
 * commits first and is accepted once they prove the update, so honest pushes stay far below.
 */
export const PACK_LIMITS = {
  /** Objects read. */
  objects: 200_000,
  /** Bytes inflated, kept or only counted: a small stream can declare and inflate to far more (about 1,000 to 1). */
  inflatedBytes: 256 * 1024 * 1024,
  /** Bytes held: commit bodies, deltas waiting for their base, commits rebuilt from deltas. */
  keptBytes: 16 * 1024 * 1024,
};
export type PackLimits = typeof PACK_LIMITS;

const COMMIT = 1;
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** A REF_DELTA is kept for resolution while at most this large. */
const MAX_REF_DELTA_BYTES = 64 * 1024;
/** Inflated bytes of objects that are only counted land here, and are overwritten. */
const SCRATCH = new Uint8Array(32 * 1024);
const MiB = 1024 * 1024;

/** The object whose header or zlib stream is being read. */
interface PackObject {
  /** Its pack offset. */
  offset: number;
  type: number;
  size: number;
  /** Header bytes read; the size's varint continues while `sizeShift` is set. */
  sizeShift: number;
  /** OFS_DELTA: the varint of the distance back to its base; REF_DELTA: the base id's bytes. */
  baseBytes: number[];
  /** Whether the OFS_DELTA's varint is whole (true for other types). */
  distanceDone: boolean;
  /** The commit index of its base (an OFS_DELTA on a commit), or -1. */
  base: number;
  /** The kept output (exactly `size` bytes), or null when only counted. */
  data: Uint8Array<ArrayBuffer> | null;
  written: number;
}

export class PackReader {
  readonly #limits: PackLimits;
  #stage: "header" | "object-header" | "object-data" | "trailer" | "done" = "header";
  /** The pack's header or trailer, while its bytes arrive. */
  #fixed: number[] = [];
  /** The pack offset of the next byte. */
  #offset = 0;
  #objectsLeft = 0;
  #objectsRead = 0;
  #inflated = 0;
  #kept = 0;
  /** The object being read, one record reused for every object (a pack may hold many thousands). */
  readonly #object: PackObject = { offset: 0, type: 0, size: 0, sizeShift: 0, baseBytes: [], distanceDone: true, base: -1, data: null, written: 0 };
  #inObject = false;
  #zlib = new ZStream();
  /** Pack offset → index into `bodies`, for the pack's commits only. */
  #commitAt = new Map<number, number>();
  /** REF_DELTAs not yet resolved: base id, delta data, their own offset. */
  #refDeltas: Array<{ base: string; delta: Uint8Array; offset: number }> = [];
  #ids: string[] = [];
  #index = new Map<string, number>();
  #parents = new Map<string, string[]>();
  /** The raw bodies of the pack's commits, in the order they were read or resolved. */
  readonly bodies: Uint8Array[] = [];
  /** Objects that are not commits have been read since the last commit. */
  pastCommits = false;

  constructor(limits: Partial<PackLimits> = {}) {
    this.#limits = { ...PACK_LIMITS, ...limits };
    if (zlibInflateInit2(this.#zlib, 15) !== Z_OK) throw new Error("zlib could not start");
  }

  get done(): boolean {
    return this.#stage === "done";
  }

  /** Bytes inflated so far, kept or only counted. */
  get inflatedBytes(): number {
    return this.#inflated;
  }

  /**
   * What reading has cost so far: objects begun, bytes inflated and kept, and the pack's own
   * bytes waiting for the next chunk (a header's few; an object's stream never waits).
   */
  get cost(): { objects: number; inflatedBytes: number; keptBytes: number; waitingBytes: number } {
    const waitingBytes = this.#fixed.length + (this.#stage === "object-header" && this.#inObject ? this.#object.baseBytes.length : 0);
    return { objects: this.#objectsRead, inflatedBytes: this.#inflated, keptBytes: this.#kept, waitingBytes };
  }

  /** Takes the next bytes of the pack; throws PackError when they are not a valid pack, or past a cap. */
  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      switch (this.#stage) {
        case "header":
        case "trailer":
          at = this.#fixedPart(chunk, at);
          break;
        case "object-header":
          at = this.#objectHeader(chunk, at);
          break;
        case "object-data":
          at = this.#objectData(chunk, at);
          break;
        case "done":
          throw new PackError("data after the pack's end");
      }
    }
  }

  /** The pack's bytes have all arrived: throws PackError unless it was whole. */
  finish(): void {
    if (this.#stage !== "done") throw new PackError("the pack is truncated");
  }

  #fixedPart(chunk: Uint8Array, at: number): number {
    const need = this.#stage === "header" ? 12 : 20;
    const take = Math.min(need - this.#fixed.length, chunk.length - at);
    for (let i = 0; i < take; i++) this.#fixed.push(chunk[at + i]!);
    this.#offset += take;
    if (this.#fixed.length < need) return at + take;
    const bytes = this.#fixed;
    this.#fixed = [];
    if (this.#stage === "trailer") {
      this.#stage = "done";
      return at + take;
    }
    if (bytes[0] !== 0x50 || bytes[1] !== 0x41 || bytes[2] !== 0x43 || bytes[3] !== 0x4b) throw new PackError("not a pack");
    const version = readU32(bytes, 4);
    if (version !== 2 && version !== 3) throw new PackError(`pack version ${version} is not supported`);
    this.#objectsLeft = readU32(bytes, 8);
    this.#stage = this.#objectsLeft ? "object-header" : "trailer";
    return at + take;
  }

  /** An object's header, a byte at a time: type and size, then its base's offset or id. */
  #objectHeader(chunk: Uint8Array, at: number): number {
    const object = this.#object;
    while (at < chunk.length) {
      const c = chunk[at++]!;
      this.#offset++;
      if (!this.#inObject) {
        if (++this.#objectsRead > this.#limits.objects) throw new PackLimitError(`the pack holds more than ${this.#limits.objects} objects to check`);
        const type = (c >> 4) & 7;
        if (type < 1 || type === 5) throw new PackError(`unknown object type ${type}`);
        this.#inObject = true;
        object.offset = this.#offset - 1;
        object.type = type;
        object.size = c & 15;
        object.sizeShift = c & 0x80 ? 4 : 0;
        object.distanceDone = type !== OFS_DELTA;
        object.baseBytes.length = 0;
        object.base = -1;
        object.data = null;
        object.written = 0;
      } else if (object.sizeShift) {
        if (object.sizeShift > 49) throw new PackError("an object's size is too large");
        object.size += (c & 0x7f) * 2 ** object.sizeShift;
        object.sizeShift = c & 0x80 ? object.sizeShift + 7 : 0;
      } else if (!object.distanceDone) {
        if (object.baseBytes.length >= 7) throw new PackError("a delta's base offset is too large");
        object.baseBytes.push(c);
        object.distanceDone = !(c & 0x80);
      } else if (object.type === REF_DELTA && object.baseBytes.length < 20) {
        object.baseBytes.push(c);
      }
      if (!object.sizeShift && object.distanceDone && (object.type !== REF_DELTA || object.baseBytes.length === 20)) {
        this.#beginData(object);
        return at;
      }
    }
    return at;
  }

  #beginData(object: PackObject): void {
    let keep = object.type === COMMIT;
    if (object.type === OFS_DELTA) {
      const baseOffset = object.offset - ofsDistance(object.baseBytes);
      if (baseOffset < 12) throw new PackError("a delta's base is not an object of the pack");
      object.base = this.#commitAt.get(baseOffset) ?? -1;
      keep = object.base >= 0;
    } else if (object.type === REF_DELTA) {
      keep = object.size <= MAX_REF_DELTA_BYTES;
    }
    if (object.size > this.#limits.inflatedBytes - this.#inflated) throw this.#past("inflatedBytes");
    if (keep) {
      if (object.size > MAX_COMMIT_BYTES) throw new PackError("a commit of the pack is too large");
      if (object.type === REF_DELTA && this.#kept + object.size > this.#limits.keptBytes) keep = false;
      else this.#keep(object.size);
    }
    object.data = keep ? new Uint8Array(object.size) : null;
    zlibInflateReset(this.#zlib);
    this.#stage = "object-data";
  }

  /** Inflates what the chunk holds of the object's zlib stream; → where its bytes stop. */
  #objectData(chunk: Uint8Array, at: number): number {
    const object = this.#object;
    const zlib = this.#zlib;
    zlib.input = chunk;
    zlib.next_in = at;
    zlib.avail_in = chunk.length - at;
    for (;;) {
      zlib.output = object.data ?? SCRATCH;
      zlib.next_out = object.data ? object.written : 0;
      zlib.avail_out = zlib.output.length - zlib.next_out;
      const room = zlib.avail_out;
      const from = zlib.next_in;
      const status = zlibInflate(zlib, Z_NO_FLUSH);
      const produced = room - zlib.avail_out;
      object.written += produced;
      this.#inflated += produced;
      if (object.written > object.size) throw new PackError("an object of the pack is larger than its header says");
      if (this.#inflated > this.#limits.inflatedBytes) throw this.#past("inflatedBytes");
      if (status === Z_STREAM_END) {
        if (object.written !== object.size) throw new PackError("an object of the pack is smaller than its header says");
        const end = zlib.next_in;
        this.#offset += end - at;
        this.#endObject(object);
        return end;
      }
      if (status === Z_BUF_ERROR || status === Z_OK) {
        if (zlib.avail_in === 0) {
          this.#offset += chunk.length - at;
          return chunk.length;
        }
        // Input is left, yet nothing moved: the kept output is full, so the stream holds more than its header said.
        if (produced === 0 && zlib.next_in === from) throw new PackError("an object of the pack is larger than its header says");
        continue;
      }
      throw new PackError(`an object of the pack is corrupt (${zlib.msg || `zlib status ${status}`})`);
    }
  }

  #endObject(object: PackObject): void {
    this.#inObject = false;
    let commit = -1;
    if (object.type === COMMIT) commit = this.#commit(object.data!);
    else if (object.type === OFS_DELTA && object.base >= 0) commit = this.#commit(this.#rebuilt(this.bodies[object.base]!, object.data!));
    else if (object.type === REF_DELTA && object.data) {
      const base = Array.from(object.baseBytes, (b) => b.toString(16).padStart(2, "0")).join("");
      this.#refDeltas.push({ base, delta: object.data, offset: object.offset });
    }
    if (object.type === OFS_DELTA && object.data) this.#kept -= object.data.length;
    if (commit >= 0) this.#commitAt.set(object.offset, commit);
    else if (this.bodies.length) this.pastCommits = true;
    this.#stage = --this.#objectsLeft ? "object-header" : "trailer";
  }

  /** A commit rebuilt from a delta on a commit: held like any other. */
  #rebuilt(base: Uint8Array, delta: Uint8Array): Uint8Array {
    const body = applyDelta(base, delta);
    this.#keep(body.length);
    return body;
  }

  #keep(bytes: number): void {
    this.#kept += bytes;
    if (this.#kept > this.#limits.keptBytes) throw this.#past("keptBytes");
  }

  #past(limit: "inflatedBytes" | "keptBytes"): PackLimitError {
    const cap = `${Math.round(this.#limits[limit] / MiB)} MiB`;
    return new PackLimitError(
      limit === "keptBytes"
        ? `the pack's commits are larger than the ${cap} the gateway checks`
        : `the pack inflates to more than the ${cap} the gateway checks`,
    );
  }

  #commit(body: Uint8Array): number {
    this.bodies.push(body);
    this.pastCommits = false;
    return this.bodies.length - 1;
  }

  /** The pack's commits so far: id → parent ids (the same map, grown, at each call). */
  async commits(): Promise<ReadonlyMap<string, readonly string[]>> {
    for (;;) {
      for (let i = this.#ids.length; i < this.bodies.length; i++) {
        const id = await commitId(this.bodies[i]!);
        this.#ids.push(id);
        this.#index.set(id, i);
        this.#parents.set(id, commitParents(this.bodies[i]!));
      }
      const resolvable = this.#refDeltas.filter((d) => this.#index.has(d.base));
      if (!resolvable.length) break;
      this.#refDeltas = this.#refDeltas.filter((d) => !this.#index.has(d.base));
      for (const { base, delta, offset } of resolvable) {
        this.#kept -= delta.length;
        this.#commitAt.set(offset, this.#commit(this.#rebuilt(this.bodies[this.#index.get(base)!]!, delta)));
      }
    }
    return this.#parents;
  }
}

function readU32(bytes: number[], at: number): number {
  return ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;
}

/** An OFS_DELTA's distance back to its base: git's offset varint (each continuation adds one before shifting). */
function ofsDistance(bytes: number[]): number {
  let distance = bytes[0]! & 0x7f;
  for (let i = 1; i < bytes.length; i++) distance = (distance + 1) * 128 + (bytes[i]! & 0x7f);
  return distance;
}
