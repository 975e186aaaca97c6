import { answerError } from "./api-client";
import { type SseEvent, SseParser } from "./sse";
import { type RetryingNotice, retryingNotice } from "./unavailable";

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

export interface EventStreamOptions {
  /** The stream's path, e.g. `/api/runs/:id/events` or `/api/guilds/:id/events`. */
  path: string;
  token: string;
  /** The highest row seq the view holds; read before every (re)connect. */
  lastSeq: () => number;
  onEvent: (event: SseEvent) => void;
  /**
   * Runs before each reconnect: the view reloads the ordered history after its last
   * seq (UI-007), so the stream then resumes from there.
   */
  beforeReconnect?: () => Promise<void>;
  onConnection?: (state: ConnectionState) => void;
  /**
   * The view's retrying notice: while the database does not answer (a 503
   * database.unavailable of the stream or of the reload before it) it says so and the
   * stream waits the answer's Retry-After; it clears once the stream is open again.
   * Without one the stream still waits each Retry-After, saying nothing.
   */
  notice?: RetryingNotice;
  /** The API refused the stream for good (401, 403, 404): no retry. */
  onFatal?: (status: number, body: string) => void;
  fetch?: typeof fetch;
  /** Delay before reconnect attempt n (0-based). */
  retryDelayMs?: (attempt: number) => number;
  /** A stream silent for this long (the server pings every 15 s) counts as dropped. */
  idleTimeoutMs?: number;
  baseUrl?: string;
}

export type RunStreamOptions = Omit<EventStreamOptions, "path"> & { runId: string };

export interface RunStream {
  close(): void;
}

const defaultDelay = (attempt: number) => Math.min(500 * 2 ** attempt, 5_000);

/**
 * GET /api/runs/:id/events over fetch and a ReadableStream, since EventSource cannot
 * send the Authorization header. The first connection asks for rows after the view's
 * last seq (`?after_seq=`); after a drop it reconnects with `Last-Event-ID`, so rows
 * resume with no gap, and the view drops any row it already holds by seq.
 *
 * @example
 *   const stream = openRunStream({ runId, token, lastSeq: () => held, onEvent: apply });
 *   stream.close();
 */
export function openRunStream(options: RunStreamOptions): RunStream {
  return openEventStream({ ...options, path: `/api/runs/${encodeURIComponent(options.runId)}/events` });
}

/**
 * Any of the API's seq-numbered event streams (a run's, a guild chat's), read as
 * openRunStream describes: `?after_seq=` first, `Last-Event-ID` after a drop.
 */
export function openEventStream(options: EventStreamOptions): RunStream {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const delay = options.retryDelayMs ?? defaultDelay;
  const idleTimeout = options.idleTimeoutMs ?? 45_000;
  const notice = options.notice ?? retryingNotice(() => {});
  let closed = false;
  let controller: AbortController | null = null;
  let wake: (() => void) | null = null;
  /** Highest seq seen on this stream's `id:` lines. */
  let seenSeq = -1;

  const connection = (state: ConnectionState) => options.onConnection?.(state);

  /** "retry" after the back-off, or the wait (ms) the database asked for. */
  async function connectOnce(first: boolean): Promise<"retry" | "stop" | number> {
    const ticket = notice.begin();
    controller = new AbortController();
    const signal = controller.signal;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => controller?.abort(), idleTimeout);
    };
    try {
      if (!first && options.beforeReconnect) await options.beforeReconnect();
      if (closed) return "stop";
      const after = Math.max(options.lastSeq(), seenSeq);
      const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: "text/event-stream" };
      let url = `${options.baseUrl ?? ""}${options.path}`;
      if (first) url += `?after_seq=${after}`;
      else headers["last-event-id"] = String(after);
      armIdle();
      const response = await doFetch(url, { headers, signal, cache: "no-store" });
      if ([401, 403, 404].includes(response.status)) {
        options.onFatal?.(response.status, await response.text().catch(() => ""));
        return "stop";
      }
      if (!response.ok) throw answerError(response, await response.json().catch(() => undefined));
      if (!response.body) throw new Error(`events answered ${response.status} without a body`);
      notice.settle(ticket);
      connection("open");
      const parser = new SseParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        armIdle();
        const { done, value } = await reader.read();
        if (done || closed) break;
        for (const event of parser.feed(value)) {
          if (event.id !== undefined && /^\d+$/.test(event.id)) seenSeq = Math.max(seenSeq, Number(event.id));
          options.onEvent(event);
        }
      }
      return closed ? "stop" : "retry";
    } catch (error) {
      if (closed) return "stop";
      return notice.settle(ticket, error) ?? "retry";
    } finally {
      clearTimeout(idle);
      controller = null;
    }
  }

  void (async () => {
    connection("connecting");
    let attempt = 0;
    for (let first = true; !closed; first = false) {
      const opened = Date.now();
      const outcome = await connectOnce(first);
      if (outcome === "stop") break;
      // A stream that stayed open a while resets the back-off.
      if (Date.now() - opened > 10_000) attempt = 0;
      connection("reconnecting");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, typeof outcome === "number" ? outcome : delay(attempt++));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
    connection("closed");
  })();

  return {
    close() {
      closed = true;
      controller?.abort();
      wake?.();
    },
  };
}
