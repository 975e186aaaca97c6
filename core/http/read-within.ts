import { concatBytes } from "../bytes/concat";

/**
 * A stream's bytes, read only while they fit in `maxBytes`: past the cap the read stops and the
 * stream is cancelled, so what a peer sends never grows in memory beyond it. Shared by the API's
 * request bodies and the agent object's reads from a box.
 *
 * @example await readWithin(request.body, 1 << 20) // Uint8Array, or null past 1 MiB
 */
export async function readWithin(stream: ReadableStream<Uint8Array> | null | undefined, maxBytes: number): Promise<Uint8Array | null> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  return concatBytes(parts);
}

/**
 * How much of one kind of peer's answer is read (core/http/answer-caps.ts names each kind's).
 * An event stream (text/event-stream) is read as it comes, one event at a time: with
 * `maxEventBytes` set, each event is held to it and the whole stream to `streamMaxBytes`
 * (no bound when omitted) instead of `maxBytes`.
 */
export interface AnswerCap {
  /** Who answers, as errors name it: "the MCP server". */
  peer: string;
  /** Most bytes of a whole answer. */
  maxBytes: number;
  /** Event streams only: most bytes of one event (up to a blank line). */
  maxEventBytes?: number;
  /** Event streams only, with maxEventBytes: most bytes of the whole stream. */
  streamMaxBytes?: number;
}

/** An answer past its cap. The message names the peer and the cap only: nothing of what was sent. */
export class AnswerTooLarge extends Error {
  override readonly name = "AnswerTooLarge";
  readonly code = "answer.too_large";
  constructor(
    readonly peer: string,
    readonly maxBytes: number,
    what: "answer" | "event" = "answer",
  ) {
    const said =
      what === "event" ? `An event of ${peer}'s stream is larger than ${sizeLabel(maxBytes)}` : `${peer}'s answer is larger than ${sizeLabel(maxBytes)}`;
    super(`${said.charAt(0).toUpperCase()}${said.slice(1)}; it was not read further`);
  }
}

/** The AnswerTooLarge an SDK wrapped (as a cause, once or twice), or null. */
export function answerTooLargeIn(error: unknown): AnswerTooLarge | null {
  for (let at = error, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    if (at instanceof AnswerTooLarge) return at;
  }
  return null;
}

/**
 * A size as people read it.
 *
 * @example sizeLabel(4 * 1024 * 1024) // "4 MiB"
 */
export function sizeLabel(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return `${bytes / (1 << 10)} KiB`;
  return `${bytes} bytes`;
}

const isEventStream = (response: Response) => /^\s*text\/event-stream/i.test(response.headers.get("content-type") ?? "");

/**
 * Counts the bytes since the last event boundary (a blank line: two line ends in a row, CRLF
 * counting as one), as an SSE parser would buffer them.
 */
function eventCounter() {
  let since = 0;
  let ends = 0;
  let lastCr = false;
  return (chunk: Uint8Array): number => {
    let most = since;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 0x0a || b === 0x0d) {
        if (!(b === 0x0a && lastCr)) ends++;
        lastCr = b === 0x0d;
        if (ends >= 2) since = 0;
        continue;
      }
      lastCr = false;
      ends = 0;
      since++;
      if (since > most) most = since;
    }
    return most;
  };
}

/**
 * The body stream cut at the cap: reading past it errors with AnswerTooLarge and cancels the
 * source, so nothing beyond one chunk past the cap is ever pulled from the peer.
 */
export function boundedStream(
  source: ReadableStream<Uint8Array>,
  cap: AnswerCap,
  eventStream = false,
  onOver?: (error: AnswerTooLarge) => void,
): ReadableStream<Uint8Array> {
  const perEvent = eventStream && cap.maxEventBytes !== undefined;
  const total = perEvent ? (cap.streamMaxBytes ?? Number.POSITIVE_INFINITY) : cap.maxBytes;
  const events = perEvent ? eventCounter() : null;
  const reader = source.getReader();
  let read = 0;
  const refuse = async (controller: ReadableStreamDefaultController<Uint8Array>, error: AnswerTooLarge) => {
    controller.error(error);
    onOver?.(error);
    await reader.cancel(error).catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        read += value.byteLength;
        if (read > total) return refuse(controller, new AnswerTooLarge(cap.peer, total));
        if (events && events(value) > cap.maxEventBytes!) return refuse(controller, new AnswerTooLarge(cap.peer, cap.maxEventBytes!, "event"));
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The response with its body held to the cap; status, headers and URL as they were. A body
 * that declares a length past the cap is refused at its first read, unread. `onOver` hears of
 * a refusal, for a reader (an SDK's background event stream) that would not pass it on.
 */
export function withinCap(response: Response, cap: AnswerCap, onOver?: (error: AnswerTooLarge) => void): Response {
  if (!response.body) return response;
  const eventStream = isEventStream(response);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  const body =
    !eventStream && declared > cap.maxBytes
      ? refusedAtOnce(response.body, new AnswerTooLarge(cap.peer, cap.maxBytes), onOver)
      : boundedStream(response.body, cap, eventStream, onOver);
  const capped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  if (response.url) Object.defineProperty(capped, "url", { value: response.url });
  return capped;
}

function refusedAtOnce(source: ReadableStream<Uint8Array>, error: AnswerTooLarge, onOver?: (error: AnswerTooLarge) => void): ReadableStream<Uint8Array> {
  void source.cancel(error).catch(() => {});
  return new ReadableStream({
    pull(controller) {
      controller.error(error);
      onOver?.(error);
    },
  });
}

type FetchLike<I, R extends RequestInit | undefined> = (input: I, init?: R) => Promise<Response>;

/**
 * A fetch whose answers are held to the cap: what an SDK is given, so its own `json()`,
 * `text()` and event-stream parsing read within bounds too.
 *
 * @example const fetch = cappedFetch(globalThis.fetch, MCP_ANSWER_CAP)
 */
export function cappedFetch<I, R extends RequestInit | undefined>(
  base: FetchLike<I, R>,
  cap: AnswerCap,
  onOver?: (error: AnswerTooLarge) => void,
): FetchLike<I, R> {
  return async (input, init) => withinCap(await base(input, init), cap, onOver);
}

/** The answer's text (UTF-8), read within the cap; past it, AnswerTooLarge. */
export async function readTextWithin(response: Response, cap: AnswerCap): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > cap.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new AnswerTooLarge(cap.peer, cap.maxBytes);
  }
  const bytes = await readWithin(response.body, cap.maxBytes);
  if (bytes === null) throw new AnswerTooLarge(cap.peer, cap.maxBytes);
  return new TextDecoder().decode(bytes);
}

/** The answer's JSON, read within the cap; past it, AnswerTooLarge; not JSON, a SyntaxError. */
export async function readJsonWithin(response: Response, cap: AnswerCap): Promise<unknown> {
  return JSON.parse(await readTextWithin(response, cap));
}
