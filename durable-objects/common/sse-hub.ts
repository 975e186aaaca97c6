import type { RunEventData } from "../../core/events/streams";
import { SubscriberQueue } from "./sse-subscriber";

/** Reads up to `limit` committed rows of a stream (a run, or a guild's chat) after a seq, in seq order. */
export type Replay<Row> = (streamId: string, afterSeq: number, limit: number) => Promise<Row[]>;

/** The highest committed seq of a stream (0 when it has none): where a capped replay ends. */
export type LatestSeq = (streamId: string) => Promise<number>;

/**
 * A stream's events by name, with the data each carries (core/events/streams.ts): `message`
 * is the stored row, `status` what a subscriber gets once its replay ends.
 */
export interface HubEvents {
  message: { seq: number };
  status: unknown;
}

/** The names a hub publishes as transient events (rows go through publishRow). */
export type TransientEvent<Events extends HubEvents> = Exclude<keyof Events & string, "message">;

/** What one hub allows; every figure bounds the object's memory or sockets. */
export interface HubLimits {
  /** Open streams of one run (or guild); the next one is answered 429. */
  maxSubscribers: number;
  /** Bytes queued for one subscriber; a subscriber that lets more pile up is dropped. */
  queueBytes: number;
  /** Rows per replay read. */
  pageRows: number;
  /**
   * Rows replayed to one subscriber at most: a subscriber further behind gets a `gap`
   * event, then the newest rows; the ones it skipped are read through the API.
   */
  maxReplayRows: number;
}

export const DEFAULT_HUB_LIMITS: HubLimits = {
  maxSubscribers: 200,
  queueBytes: 1024 * 1024,
  pageRows: 200,
  maxReplayRows: Number.POSITIVE_INFINITY,
};

interface Subscriber {
  queue: SubscriberQueue;
  /** Highest row seq queued for this subscriber. */
  lastSeq: number;
  /** Live events that arrived while the replay ran; flushed after it, in order. */
  pending: Array<{ seq?: number; bytes: Uint8Array }> | null;
  pendingBytes: number;
  /** Keepalive ticks in a row at which the client had not taken what was queued. */
  stalledTicks: number;
}

const encoder = new TextEncoder();
const KEEPALIVE_MS = 15_000;
const PING = encoder.encode(": ping\n\n");

/**
 * A Server-Sent Events fan-out of ordered rows: a run's transcript, fed by the generation
 * loop after each commit, or a guild's public chat, fed by the guild object.
 *
 * A subscriber first gets the committed rows after its Last-Event-ID, read in pages of
 * `pageRows` (one read shared by every subscriber asking for the same page, the next page
 * only once the client took the last one), then live events. Rows carry `id: <seq>` and a
 * subscriber never gets a seq twice, so a reconnect resumes with no duplicate. Nor with a
 * silent gap: past `maxReplayRows` behind, the replay starts with
 * `event: gap` / `{"after_seq": N, "resumes_at_seq": M}` and sends rows from M on; the
 * rows between N and M are for the client to read through the API.
 * Each subscriber's queue is bounded in bytes: one that stops reading is dropped and
 * comes back with Last-Event-ID. Past `maxSubscribers` a stream is refused with 429.
 *
 * @example
 *   const hub = new SseHub((id, after, limit) => loadRows(db, id, after, limit), { maxSubscribers: 200 });
 *   return hub.subscribe(runId, lastEventId, () => ({ generating }));
 *   hub.publishRow(runId, committedRow); // after COMMIT only
 */
export class SseHub<Events extends HubEvents = RunEventData> {
  private readonly streams = new Map<string, Set<Subscriber>>();
  private readonly reads = new Map<string, Promise<Events["message"][]>>();
  private readonly limits: HubLimits;
  private keepalive: ReturnType<typeof setInterval> | undefined;

  /** `latestSeq` is required with a finite `maxReplayRows`: the replay then starts from the newest rows. */
  constructor(
    private readonly replay: Replay<Events["message"]>,
    limits: Partial<HubLimits> = {},
    private readonly latestSeq?: LatestSeq,
  ) {
    this.limits = { ...DEFAULT_HUB_LIMITS, ...limits };
    if (Number.isFinite(this.limits.maxReplayRows) && !latestSeq) throw new Error("SseHub: a capped replay needs latestSeq");
  }

  /**
   * Opens a stream of the rows after `afterSeq`, then a `status` event (so a late
   * subscriber knows whether to wait), then live events; 429 past the subscriber cap.
   */
  subscribe(streamId: string, afterSeq: number, status: () => Events["status"]): Response {
    let set = this.streams.get(streamId);
    if ((set?.size ?? 0) >= this.limits.maxSubscribers) return tooManySubscribers(this.limits.maxSubscribers);
    if (!set) this.streams.set(streamId, (set = new Set()));
    const subscriber: Subscriber = {
      queue: new SubscriberQueue(this.limits.queueBytes, () => this.drop(streamId, subscriber)),
      lastSeq: afterSeq,
      pending: [],
      pendingBytes: 0,
      stalledTicks: 0,
    };
    set.add(subscriber);
    this.startKeepalive();
    void this.catchUp(streamId, subscriber, status);
    return new Response(subscriber.queue.readable, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  }

  /** A committed row: `event: message`, `id: <seq>`. Call only after its transaction committed. */
  publishRow(streamId: string, row: Events["message"]): void {
    const set = this.streams.get(streamId);
    if (!set) return;
    const bytes = frame("message", row, row.seq);
    for (const s of set) this.deliver(streamId, s, bytes, row.seq);
  }

  /** A transient event (delta, status, error, run.continued): no id, not history. */
  publish<K extends TransientEvent<Events>>(streamId: string, event: K, data: Events[K]): void {
    const set = this.streams.get(streamId);
    if (!set) return;
    const bytes = frame(event, data);
    for (const s of set) this.deliver(streamId, s, bytes);
  }

  /** Number of open streams of one run or guild (all when omitted). */
  subscribers(streamId?: string): number {
    if (streamId) return this.streams.get(streamId)?.size ?? 0;
    let n = 0;
    for (const set of this.streams.values()) n += set.size;
    return n;
  }

  private async catchUp(streamId: string, s: Subscriber, status: () => Events["status"]): Promise<void> {
    const { pageRows, maxReplayRows } = this.limits;
    try {
      if (this.latestSeq && Number.isFinite(maxReplayRows)) {
        // Every row committed before this point is at most `newest`; later ones are pending.
        const newest = await this.latestSeq(streamId);
        if (newest - s.lastSeq > maxReplayRows) {
          const resumesAt = newest - maxReplayRows + 1;
          if (!(await this.replayPush(s, frame("gap", { after_seq: s.lastSeq, resumes_at_seq: resumesAt })))) return;
          s.lastSeq = resumesAt - 1;
        }
      }
      let replayed = 0;
      while (replayed < maxReplayRows) {
        const page = await this.read(streamId, s.lastSeq, Math.min(pageRows, maxReplayRows - replayed));
        for (const row of page) {
          if (row.seq <= s.lastSeq) continue;
          if (!(await this.replayPush(s, frame("message", row, row.seq)))) return;
          s.lastSeq = row.seq;
        }
        replayed += page.length;
        if (page.length < pageRows) break;
        // The next page is read once the client took this one: one page in memory at most.
        await s.queue.drained();
        if (s.queue.isClosed) return;
      }
      if (!(await this.replayPush(s, frame("status", status())))) return;
    } catch {
      this.drop(streamId, s);
      return;
    }
    const pending = s.pending ?? [];
    s.pending = null;
    s.pendingBytes = 0;
    for (const event of pending) this.deliver(streamId, s, event.bytes, event.seq);
  }

  /** Queues a replayed frame, waiting for the client to make room; false once the subscriber is gone. */
  private async replayPush(s: Subscriber, bytes: Uint8Array): Promise<boolean> {
    if (s.queue.push(bytes)) return true;
    await s.queue.drained();
    return s.queue.push(bytes);
  }

  /** One read per page however many subscribers ask for it at once. */
  private read(streamId: string, afterSeq: number, limit: number): Promise<Events["message"][]> {
    const key = `${streamId}\u0000${afterSeq}\u0000${limit}`;
    let read = this.reads.get(key);
    if (!read) {
      read = this.replay(streamId, afterSeq, limit).finally(() => this.reads.delete(key));
      this.reads.set(key, read);
    }
    return read;
  }

  private deliver(streamId: string, s: Subscriber, bytes: Uint8Array, seq?: number): void {
    if (s.pending) {
      // Held until the replay ends; a subscriber whose replay lags too far is dropped too.
      s.pendingBytes += bytes.byteLength;
      if (s.pendingBytes > this.limits.queueBytes) this.drop(streamId, s);
      else s.pending.push(seq === undefined ? { bytes } : { seq, bytes });
      return;
    }
    if (seq !== undefined) {
      if (seq <= s.lastSeq) return;
      s.lastSeq = seq;
    }
    if (!s.queue.push(bytes)) this.drop(streamId, s);
  }

  private drop(streamId: string, s: Subscriber): void {
    const set = this.streams.get(streamId);
    if (set?.delete(s) && set.size === 0) this.streams.delete(streamId);
    s.pending = null;
    s.queue.close();
    if (this.streams.size === 0 && this.keepalive) {
      clearInterval(this.keepalive);
      this.keepalive = undefined;
    }
  }

  /**
   * Every KEEPALIVE_MS: a ping to each idle subscriber, and a subscriber that took
   * nothing for two periods is dropped, replaying or live. That also frees a stream nobody
   * ever read (its request failed on the way), which would otherwise hold its place under
   * the cap, its replay waiting for a drain that never comes.
   */
  private startKeepalive(): void {
    this.keepalive ??= setInterval(() => {
      for (const [streamId, set] of this.streams) {
        for (const s of set) {
          if (s.queue.bytes === 0) {
            s.stalledTicks = 0;
            // A replaying subscriber is waiting on a read; its next rows keep it alive.
            if (!s.pending) s.queue.push(PING);
          } else if (++s.stalledTicks >= 2) {
            this.drop(streamId, s);
          }
        }
      }
    }, KEEPALIVE_MS);
  }
}

/**
 * Hub limits from the object's environment: `MAX_RUN_SUBSCRIBERS` (or
 * `MAX_GUILD_SUBSCRIBERS`) and `SSE_QUEUE_BYTES`; unset or invalid values keep the defaults.
 * @example hubLimits(env.MAX_RUN_SUBSCRIBERS, env.SSE_QUEUE_BYTES, 200)
 */
export function hubLimits(maxSubscribers: string | undefined, queueBytes: string | undefined, defaultMax: number): Partial<HubLimits> {
  return {
    maxSubscribers: positiveInt(maxSubscribers) ?? defaultMax,
    queueBytes: positiveInt(queueBytes) ?? DEFAULT_HUB_LIMITS.queueBytes,
  };
}

/** A positive integer setting, or undefined when unset or not one. */
export function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value);
  return n > 0 && Number.isSafeInteger(n) ? n : undefined;
}

function tooManySubscribers(limit: number): Response {
  const body = {
    error: {
      code: "stream.too_many_subscribers",
      message: `This stream already has ${limit} subscribers; try again later`,
      details: { limit },
    },
  };
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": "5" },
  });
}

function frame(event: string, data: unknown, id?: number): Uint8Array {
  const idLine = id === undefined ? "" : `id: ${id}\n`;
  return encoder.encode(`event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
}

/**
 * `GET /runs/:id/events?after=N` as the Worker forwards it to the object that commits the
 * run's rows (the agent's, or a task run's task object): the run's stream from `after`.
 */
export function serveRunEvents(request: Request, hub: SseHub<RunEventData>, generating: (runId: string) => boolean): Response {
  const url = new URL(request.url);
  const match = /^\/runs\/([0-9a-f-]{36})\/events$/.exec(url.pathname);
  if (!match) return new Response("not found", { status: 404 });
  const after = Number(url.searchParams.get("after") ?? "-1");
  const runId = match[1]!;
  return hub.subscribe(runId, Number.isFinite(after) ? after : -1, () => ({ run_id: runId, generating: generating(runId) }));
}
