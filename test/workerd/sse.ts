import { exports } from "cloudflare:workers";
import type { EventSchemas } from "../../core/events/streams";
import { refusePlatformKey } from "./canary";

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

/** How a stream is read: where it resumes, how long it may take, and who to tell once it is open. */
export type StreamOptions = {
  lastEventId?: string;
  afterSeq?: number;
  timeoutMs?: number;
  /** Called once the stream answered 200: the subscriber is registered, events from now on reach it. */
  onOpen?: () => void;
};

/**
 * Opens the run's event stream as a browser's EventSource would and collects events
 * until `until` says stop (or the time runs out), then closes the stream.
 */
export async function collectEvents(token: string, runId: string, until: (events: SseEvent[]) => boolean, options: StreamOptions = {}): Promise<SseEvent[]> {
  return collectStream(token, `/api/runs/${runId}/events`, until, options);
}

/**
 * `collectEvents`, with `opened` settled once the stream is open (or failed with its error):
 * what a test does after it reaches the stream on a loaded machine too, where a pause of a
 * few ms before acting did not promise that.
 *
 * @example
 *   const { opened, events } = openEvents(token, runId, (seen) => seen.some((e) => e.event === "error"));
 *   await opened;
 *   await call("POST", `/api/runs/${runId}/messages`, { token, body: { content: "go" } });
 */
export function openEvents(token: string, runId: string, until: (events: SseEvent[]) => boolean, options: StreamOptions = {}): OpenedStream {
  return openStream(token, `/api/runs/${runId}/events`, until, options);
}

/** What `openEvents` and `openStream` give: the stream's opening, then its events. */
export interface OpenedStream {
  opened: Promise<void>;
  events: Promise<SseEvent[]>;
}

/** `openEvents` for any event stream of the API, e.g. a guild's `/api/guilds/:id/events`. */
export function openStream(token: string, path: string, until: (events: SseEvent[]) => boolean, options: StreamOptions = {}): OpenedStream {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  const events = collectStream(token, path, until, {
    ...options,
    onOpen: () => {
      options.onOpen?.();
      resolve();
    },
  });
  return { opened: Promise.race([promise, events.then(() => undefined)]), events };
}

/** `collectEvents` for any event stream of the API, e.g. a guild's `/api/guilds/:id/events`. */
export async function collectStream(token: string, path: string, until: (events: SseEvent[]) => boolean, options: StreamOptions = {}): Promise<SseEvent[]> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "text/event-stream" };
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  const query = options.afterSeq !== undefined ? `?after_seq=${options.afterSeq}` : "";
  const controller = new AbortController();
  const response = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test${path}${query}`, {
    headers,
    signal: controller.signal,
  });
  if (response.status !== 200) throw new Error(`events answered ${response.status}: ${await response.text()}`);
  options.onOpen?.();
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = "";
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  try {
    while (!until(events) && Date.now() < deadline) {
      const { done, value } = await Promise.race([
        reader.read(),
        new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), Math.max(0, deadline - Date.now()))),
      ]);
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        refusePlatformKey(frame, `an event of ${path}`);
        const event: Partial<SseEvent> = { event: "message" };
        let data = "";
        for (const line of frame.split("\n")) {
          if (line.startsWith(":")) continue;
          const [field, ...rest] = line.split(": ");
          const value = rest.join(": ");
          if (field === "event") event.event = value;
          if (field === "id") event.id = value;
          if (field === "data") data += value;
        }
        if (data) events.push({ ...(event as SseEvent), data: JSON.parse(data) });
      }
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => {});
  }
  return events;
}

/**
 * The events whose name the stream's schemas (core/events/streams.ts) do not list, or
 * whose data does not parse against its schema, each with why; empty when all fit.
 */
export function eventMisfits(events: Array<{ event: string; data: unknown }>, schemas: EventSchemas): string[] {
  return events.flatMap((e) => {
    const schema = schemas[e.event];
    if (!schema) return [`${e.event}: the stream has no schema for this event`];
    const parsed = schema.safeParse(e.data);
    return parsed.success ? [] : [`${e.event}: ${parsed.error.message.slice(0, 400)} in ${JSON.stringify(e.data).slice(0, 300)}`];
  });
}
