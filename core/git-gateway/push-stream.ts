/**
 * A push's pack on its way to the forge: checked as it streams (PackVerifier), its last chunk
 * held back until the push is accepted (forwardedBody), so a refused push reaches the forge as
 * a truncated request that changes nothing there.
 */
import { type Ancestry, checkPush, needsAncestry, type PushPolicy, type Refusal } from "./check-push";
import { PackError, PackLimitError } from "./commit";
import { PackReader } from "./pack";
import type { Command } from "./pkt-line";

/** The slice of a chunk read at once: deflate's limit of about 1,032 to 1 keeps its work to a few MiB. */
const TAKE_SLICE = 4096;
const YIELD_AFTER_BYTES = 1024 * 1024;

/**
 * Decides the fast-forward checks from the pack as it streams: accepted as soon as the commits
 * read so far prove every update (git sends a pack's commits first; the first time the pack
 * moves past them the forge is asked about where the walk leaves it), refused at once when
 * the pack cannot be read or passes a cap, otherwise refused only once the whole pack is read
 * and the forge asked again.
 */
export class PackVerifier {
  readonly #pack = new PackReader();
  #checkedCommits = 0;
  #askedForge = false;
  accepted = false;
  refusals: Refusal[] | null = null;

  constructor(
    private readonly commands: Command[],
    private readonly policy: PushPolicy,
    private readonly ancestry: Ancestry,
  ) {}

  /** Whether the push is decided: accepted, or refused. */
  get decided(): boolean {
    return this.accepted || this.refusals !== null;
  }

  async take(chunk: Uint8Array): Promise<void> {
    if (this.decided) return;
    // A few KiB of deflate can inflate to megabytes: the chunk is read in slices, and the
    // isolate's other requests get their turn whenever a slice cost much.
    for (let at = 0; at < chunk.length; at += TAKE_SLICE) {
      const before = this.#pack.inflatedBytes;
      try {
        this.#pack.push(chunk.subarray(at, at + TAKE_SLICE));
      } catch (error) {
        if (!(error instanceof PackError)) throw error;
        this.#refuseUnread(error);
        return;
      }
      if (this.#pack.inflatedBytes - before > YIELD_AFTER_BYTES) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    // Checked again only once the commits have doubled, so a pack that interleaves commits
    // with other objects costs a linear walk, not one per commit.
    const commits = this.#pack.bodies.length;
    if ((this.#pack.pastCommits || this.#pack.done) && commits > 2 * this.#checkedCommits) {
      this.#checkedCommits = commits;
      const ancestry: Ancestry = this.#askedForge ? async () => false : this.ancestry;
      this.#askedForge = true;
      const early = await checkPush(this.commands, this.policy, ancestry, await this.#pack.commits());
      if (!early.length) this.accepted = true;
    }
  }

  /** The pack has all arrived: → whether the push may complete. */
  async finish(): Promise<boolean> {
    if (this.decided) return this.accepted;
    try {
      this.#pack.finish();
    } catch (error) {
      if (!(error instanceof PackError)) throw error;
      this.#refuseUnread(error);
      return false;
    }
    this.refusals = await checkPush(this.commands, this.policy, this.ancestry, await this.#pack.commits());
    this.accepted = this.refusals.length === 0;
    return this.accepted;
  }

  #refuseUnread(error: PackError): void {
    const reason = error instanceof PackLimitError ? error.message : `the pushed pack could not be read (${error.message})`;
    this.refusals = needsAncestry(this.commands, this.policy).map((c) => ({ ref: c.ref, reason }));
  }
}

/**
 * The request body the forge gets: the command section as read, then the pack, forwarded as
 * it arrives. While a check is open the latest chunk is held back: the forge never has the
 * pack's last bytes (its checksum) before the push is accepted, so a refused push ends as a
 * truncated request that changes nothing there.
 */
export function forwardedBody(
  section: Uint8Array[],
  rest: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  verifier: PackVerifier | null,
  refused: () => void,
): ReadableStream<Uint8Array> {
  let first: Uint8Array | null = rest.length ? rest : null;
  let held: Uint8Array | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of section) controller.enqueue(part);
    },
    async pull(controller) {
      let chunk: Uint8Array | undefined;
      if (first) {
        chunk = first;
        first = null;
      } else {
        const { done, value } = await reader.read();
        chunk = done ? undefined : value;
      }
      if (!verifier) {
        if (chunk) controller.enqueue(chunk);
        else controller.close();
        return;
      }
      if (chunk) {
        await verifier.take(chunk);
        if (verifier.refusals?.length) {
          // Refused mid-stream (an unreadable pack, data past its end, a cap): the held
          // chunk, perhaps the pack's whole rest with its checksum, never leaves.
          refused();
          return;
        }
        if (held) controller.enqueue(held);
        held = null;
        if (verifier.accepted) controller.enqueue(chunk);
        else held = chunk;
        return;
      }
      if (!(await verifier.finish())) {
        // Neither closed nor errored: the aborted request cancels the stream.
        refused();
        return;
      }
      if (held) controller.enqueue(held);
      controller.close();
    },
    cancel(reason) {
      // A refused push's rest is drained by the answer, not cut off.
      if (verifier?.refusals?.length) return;
      return reader.cancel(reason);
    },
  });
}
