/**
 * The agent's /home/agent between boxes (SBX-005, SBX-036): a zstd tar in R2 under
 * `homes/<agentId>.tar.zst`. The object streams it between the box and the bucket, so a
 * 200 MB home never sits in memory: the save cuts the archive into multipart parts of
 * PART_BYTES (R2 needs a known length per part, the guest streams without one), the
 * restore hands R2's body straight to the guest.
 */

import { SandboxError } from "../../core/sandbox/errors";
import { bytesToMib } from "../../core/sandbox/workspace";

/** R2 parts are at least 5 MiB (all but the last); 8 MiB keeps memory bounded and calls few. */
const PART_BYTES = 8 * 1024 * 1024;

export const homeKey = (agentId: string) => `homes/${agentId}.tar.zst`;

/** An archive to restore: a stream with its length, and whether it is the repository's seed. */
export interface OpenedArchive {
  body: ReadableStream<Uint8Array>;
  size: number;
  /** Not the box's own archive but its repository's seed (a task with no volume yet). */
  seed: boolean;
}

export class SandboxHomes {
  /**
   * @param keyOf the archive's object key by agent: the agent's home, or a task's volume
   * @param seedKeyOf the key of what a box without an archive of its own starts from (a task's
   *   repository seed), null while it is not known
   */
  constructor(
    private readonly bucket: R2Bucket,
    private readonly keyOf: (agentId: string) => string = homeKey,
    private readonly seedKeyOf: () => string | null = () => null,
  ) {}

  /**
   * Stores the archive, replacing the previous one only once the new one is complete and
   * within `maxBytes`; returns its size. Past the cap it throws `workspace.full` and the
   * saved home stays as it was; a stream that breaks (the guest cut it) throws too.
   */
  save(agentId: string, archive: ReadableStream<Uint8Array>, maxBytes: number): Promise<number> {
    return this.saveAt(this.keyOf(agentId), archive, maxBytes);
  }

  /** Stores the seed (as `save` does), when its key is known; → its size, or null. */
  async saveSeed(archive: ReadableStream<Uint8Array>, maxBytes: number): Promise<number | null> {
    const key = this.seedKeyOf();
    if (!key) {
      await archive.cancel();
      return null;
    }
    return this.saveAt(key, archive, maxBytes);
  }

  /** When the seed was stored; null when there is none, undefined when its key is not known (no archive is worth asking for). */
  async seedSavedAt(): Promise<Date | null | undefined> {
    const key = this.seedKeyOf();
    return key ? ((await this.bucket.head(key))?.uploaded ?? null) : undefined;
  }

  private async saveAt(key: string, archive: ReadableStream<Uint8Array>, maxBytes: number): Promise<number> {
    const reader = new PartReader(archive.getReader(), maxBytes);
    let part: Part;
    try {
      part = await reader.next();
    } catch (error) {
      await reader.cancel().catch(() => {});
      throw error;
    }
    if (part.done) {
      // Small enough for one part: a plain put.
      await this.bucket.put(key, part.bytes);
      return part.bytes.byteLength;
    }
    const upload = await this.bucket.createMultipartUpload(key);
    try {
      const parts: R2UploadedPart[] = [];
      let total = 0;
      for (;;) {
        parts.push(await upload.uploadPart(parts.length + 1, part.bytes));
        total += part.bytes.byteLength;
        if (part.done) break;
        part = await reader.next();
        if (part.bytes.byteLength === 0) break;
      }
      await upload.complete(parts);
      return total;
    } catch (error) {
      await upload.abort().catch(() => {});
      await reader.cancel().catch(() => {});
      throw error;
    }
  }

  /** The saved archive's size and time, or null when the agent has none. */
  async head(agentId: string): Promise<{ bytes: number; savedAt: Date } | null> {
    const object = await this.bucket.head(this.keyOf(agentId));
    return object ? { bytes: object.size, savedAt: object.uploaded } : null;
  }

  /**
   * The saved archive as a stream with its length; without one, the seed if it fits within
   * `seedMaxBytes` (a larger one is left for a box with a higher cap); else null.
   */
  async open(agentId: string, seedMaxBytes = Number.MAX_SAFE_INTEGER): Promise<OpenedArchive | null> {
    const object = await this.bucket.get(this.keyOf(agentId));
    if (object) return { body: object.body, size: object.size, seed: false };
    const seedKey = this.seedKeyOf();
    const seed = seedKey ? await this.bucket.get(seedKey) : null;
    if (!seed) return null;
    if (seed.size > seedMaxBytes) {
      await seed.body.cancel();
      return null;
    }
    return { body: seed.body, size: seed.size, seed: true };
  }

  /** The agent was deleted or its home reset: the saved home goes. */
  async remove(agentId: string): Promise<void> {
    await this.bucket.delete(this.keyOf(agentId));
  }
}

/**
 * The archive passed its cap: the workspace is over its limit (SBX-040). The message says
 * what the agent or the operator can do; the saved home is untouched.
 */
export function homeTooLarge(maxBytes: number): SandboxError {
  return new SandboxError(
    "workspace.full",
    `The home's archive is over its limit of ${bytesToMib(maxBytes)} MiB, so it was not saved and the saved home was kept; delete files from /home/agent (or raise max_workspace_mib)`,
  );
}

type Part = { bytes: Uint8Array; done: boolean };

/** Cuts a stream into parts of exactly PART_BYTES (the last one shorter), refusing to pass `maxBytes` in all. */
class PartReader {
  private carry: Uint8Array | null = null;
  private ended = false;
  private total = 0;
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly maxBytes: number,
  ) {}

  /** The next part; `done` when the stream ended with it (it may then be empty). */
  async next(): Promise<Part> {
    const bytes = new Uint8Array(PART_BYTES);
    let size = 0;
    while (size < PART_BYTES) {
      let chunk = this.carry;
      this.carry = null;
      if (!chunk) {
        if (this.ended) break;
        const read = await this.read();
        if (read.done) {
          this.ended = true;
          break;
        }
        chunk = read.value;
      }
      const room = PART_BYTES - size;
      if (chunk.byteLength > room) this.carry = chunk.subarray(room);
      bytes.set(chunk.subarray(0, room), size);
      size += Math.min(room, chunk.byteLength);
    }
    if (!this.ended && !this.carry) {
      // Exactly full: look ahead once so the caller knows whether more follows.
      const read = await this.read();
      if (read.done) this.ended = true;
      else this.carry = read.value;
    }
    return { bytes: bytes.subarray(0, size), done: this.ended && !this.carry };
  }

  /** One chunk from the stream, counted: past the cap the archive is refused at once. */
  private async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    const read = await this.reader.read();
    if (!read.done) {
      this.total += read.value.byteLength;
      if (this.total > this.maxBytes) throw homeTooLarge(this.maxBytes);
    }
    return read;
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}
