/**
 * One Server-Sent Events subscriber: a byte-bounded queue of frames behind a pull
 * stream. The runtime pulls when the client has room, and every pull takes all queued
 * frames as one chunk, so a burst of events costs one write, not one per event.
 *
 * A subscriber that stops reading fills its queue; `push` then answers false and the
 * hub drops it. It comes back with Last-Event-ID and the replay fills the gap.
 *
 * @example
 *   const queue = new SubscriberQueue(256 * 1024, () => streams.delete(queue)); // the client went away
 *   if (!queue.push(bytes)) queue.close(); // too far behind: it reconnects with Last-Event-ID
 *   return new Response(queue.readable);
 */
import { concatBytes } from "../../core/bytes/concat";
export class SubscriberQueue {
  readonly readable: ReadableStream<Uint8Array>;
  private chunks: Uint8Array[] = [];
  private queued = 0;
  private closed = false;
  /** Resolves a pull waiting for frames. */
  private wake: (() => void) | null = null;
  /** Resolve when the client took what was queued (replay paces itself on them). */
  private drainWaiters: Array<() => void> = [];

  constructor(
    private readonly capacity: number,
    onCancel: () => void,
  ) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.pull(controller),
        cancel: () => {
          this.close();
          onCancel();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Bytes waiting for the client. */
  get bytes(): number {
    return this.queued;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Queues a frame; false (nothing queued) when the stream is closed or the frame would
   * take a non-empty queue past the capacity. An empty queue takes any one frame, so a
   * row larger than the capacity still reaches a client that keeps up.
   */
  push(frame: Uint8Array): boolean {
    if (this.closed || (this.queued > 0 && this.queued + frame.byteLength > this.capacity)) return false;
    this.chunks.push(frame);
    this.queued += frame.byteLength;
    this.wake?.();
    return true;
  }

  /** Resolves once the client has taken every queued byte (or the stream closed). */
  drained(): Promise<void> {
    if (this.queued === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Ends the stream; frames not yet taken are discarded, so their memory is freed at once. */
  close(): void {
    this.finish();
    this.wake?.();
  }

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.chunks.length === 0 && !this.closed) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
    if (this.closed) {
      try {
        controller.close();
      } catch {
        // already cancelled by the client
      }
      return;
    }
    const chunks = this.chunks;
    this.chunks = [];
    this.queued = 0;
    controller.enqueue(chunks.length === 1 ? chunks[0]! : concatBytes(chunks));
    this.settleDrained();
  }

  private finish(): void {
    this.closed = true;
    this.chunks = [];
    this.queued = 0;
    this.settleDrained();
  }

  private settleDrained(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
