import type { WireRow } from "../core/db/transcript";

/** Replays committed rows of a stream (a run, or a guild's chat) after a seq, from Postgres. */
export type Replay<Row> = (streamId: string, afterSeq: number) => Promise<Row[]>;

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Highest row seq written to this subscriber. */
  lastSeq: number;
  /** Live events that arrived while the replay ran; flushed after it. */
  pending: Array<() => void> | null;
}

const encoder = new TextEncoder();
const KEEPALIVE_MS = 15_000;

/**
 * A Server-Sent Events fan-out of ordered rows: a run's transcript, fed by the generation
 * loop after each commit, or a guild's public chat, fed by the guild object.
 *
 * A subscriber first gets the committed rows after its Last-Event-ID from Postgres,
 * then live events; rows carry `id: <seq>` and a subscriber never gets a seq twice, so
 * a reconnect resumes with no gap and no duplicate. Live events that arrive during the
 * replay are held and flushed after it, in order.
 *
 * @example
 *   return hub.subscribe(runId, lastEventId, (id, after) => loadRowsAfter(id, after));
 *   hub.publishRow(runId, committedRow); // after COMMIT only
 */
export class SseHub<Row extends { seq: number } = WireRow> {
  private readonly runs = new Map<string, Set<Subscriber>>();
  private keepalive: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly replay: Replay<Row>) {}

  /**
   * Opens a stream of the run's rows after `afterSeq`, then a `status` event saying
   * whether the run generates now (so a late subscriber knows whether to wait), then
   * its live events.
   */
  subscribe(runId: string, afterSeq: number, status: () => unknown): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const subscriber: Subscriber = { writer: writable.getWriter(), lastSeq: afterSeq, pending: [] };
    let set = this.runs.get(runId);
    if (!set) this.runs.set(runId, (set = new Set()));
    set.add(subscriber);
    this.startKeepalive();
    void this.catchUp(runId, subscriber, status);
    return new Response(readable, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  }

  /** A committed row: `event: message`, `id: <seq>`. Call only after its transaction committed. */
  publishRow(runId: string, row: Row): void {
    this.each(runId, (s) => {
      if (row.seq <= s.lastSeq) return;
      s.lastSeq = row.seq;
      this.write(runId, s, frame("message", row, row.seq));
    });
  }

  /** A transient event (delta, status, error, run.continued): no id, not history. */
  publish(runId: string, event: string, data: unknown): void {
    this.each(runId, (s) => this.write(runId, s, frame(event, data)));
  }

  /** Number of open streams of a run (all runs when omitted). */
  subscribers(runId?: string): number {
    if (runId) return this.runs.get(runId)?.size ?? 0;
    let n = 0;
    for (const set of this.runs.values()) n += set.size;
    return n;
  }

  private async catchUp(runId: string, s: Subscriber, status: () => unknown): Promise<void> {
    try {
      for (const row of await this.replay(runId, s.lastSeq)) {
        if (row.seq <= s.lastSeq) continue;
        s.lastSeq = row.seq;
        await s.writer.write(frame("message", row, row.seq));
      }
      await s.writer.write(frame("status", status()));
    } catch {
      this.drop(runId, s);
      return;
    }
    const pending = s.pending ?? [];
    s.pending = null;
    for (const deliver of pending) deliver();
  }

  private each(runId: string, deliver: (s: Subscriber) => void): void {
    for (const s of this.runs.get(runId) ?? []) {
      if (s.pending) s.pending.push(() => deliver(s));
      else deliver(s);
    }
  }

  private write(runId: string, s: Subscriber, bytes: Uint8Array): void {
    s.writer.write(bytes).catch(() => this.drop(runId, s));
  }

  private drop(runId: string, s: Subscriber): void {
    const set = this.runs.get(runId);
    set?.delete(s);
    if (set && set.size === 0) this.runs.delete(runId);
    s.writer.close().catch(() => {});
    if (this.runs.size === 0 && this.keepalive) {
      clearInterval(this.keepalive);
      this.keepalive = undefined;
    }
  }

  private startKeepalive(): void {
    this.keepalive ??= setInterval(() => {
      for (const [runId, set] of this.runs) for (const s of set) if (!s.pending) this.write(runId, s, encoder.encode(": ping\n\n"));
    }, KEEPALIVE_MS);
  }
}

function frame(event: string, data: unknown, id?: number): Uint8Array {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  return encoder.encode(`event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
}
