/**
 * One streamed Chat Completions request (`POST {baseURL}/chat/completions` with `stream: true`),
 * read the way OpenAI's SDK reads it: the same request, the same server-sent events, the same
 * errors and their messages. A generation makes one such call per step; the SDK built a whole
 * client for each and brought 300 KiB and Node's types into the Worker (decision 0040). Free of
 * Workers APIs: `fetch` is passed in.
 *
 * @example
 * for await (const chunk of chatStream({ baseURL, apiKey, body, signal, fetch, cap: MODEL_ANSWER_CAP })) console.log(chunk.choices?.[0]?.delta);
 */
import { type AnswerCap, readTextWithin, withinCap } from "../http/read-within";

/** One `chat.completion.chunk`, as much of it as a generation reads. */
export interface ChatChunk {
  model?: string;
  usage?: ChatUsage | null;
  choices?: { delta: ChatDelta; finish_reason?: string | null }[];
}

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  cost?: number;
}

export interface ChatDelta {
  content?: string | null;
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: unknown;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

export interface ChatStreamRequest {
  baseURL: string;
  apiKey: string;
  body: Record<string, unknown>;
  signal: AbortSignal;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  /** The most the answer may hold, streamed or not: past it, reading throws AnswerTooLarge. */
  cap: AnswerCap;
  /** How long the whole call may take (ms); the SDK's `timeout`. */
  timeoutMs?: number;
}

/**
 * What the provider answered instead of a stream, or the stream's own error event, or no answer
 * at all (status null). The message is the SDK's: `"<status> <error.message>"`, the body when it
 * is not JSON, `Connection error.` when nothing answered.
 */
export class ProviderAnswerError extends Error {
  override name = "ProviderAnswerError";
  readonly code: unknown;
  constructor(
    readonly status: number | null,
    readonly error: unknown,
    message: string | undefined,
    readonly headers: Headers | null,
    options?: { cause?: unknown },
  ) {
    super(answerMessage(status, error, message), options);
    this.code = (error as { code?: unknown } | null | undefined)?.code;
  }
}

function answerMessage(status: number | null, error: unknown, message: string | undefined): string {
  const said = (error as { message?: unknown } | null | undefined)?.message;
  const msg = said ? (typeof said === "string" ? said : JSON.stringify(said)) : error ? JSON.stringify(error) : message;
  if (status && msg) return `${status} ${msg}`;
  if (status) return `${status} status code (no body)`;
  return msg || "(no status code or body)";
}

/** The request's chunks, as the provider streams them; throws ProviderAnswerError for what is not a stream. */
export async function* chatStream(request: ChatStreamRequest): AsyncGenerator<ChatChunk> {
  const base = request.baseURL.endsWith("/") ? request.baseURL.slice(0, -1) : request.baseURL;
  // One signal for the caller's abort and the time limit, its timer cleared when the call ends
  // (a burst of calls must not leave thousands of ten-minute timers behind).
  const controller = new AbortController();
  const onAbort = () => controller.abort(request.signal.reason);
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort(new Error("Request timed out."));
    },
    request.timeoutMs ?? 10 * 60_000,
  );
  try {
    yield* answerOf(request, base, controller.signal, () => timedOut);
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener("abort", onAbort);
  }
}

/** The call itself, under `signal`: its answer's chunks, or the error it is. */
async function* answerOf(request: ChatStreamRequest, base: string, signal: AbortSignal, timedOut: () => boolean): AsyncGenerator<ChatChunk> {
  let response: Response;
  try {
    const answer = await request.fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", authorization: `Bearer ${request.apiKey}` },
      body: JSON.stringify(request.body),
      signal,
    });
    response = withinCap(answer, request.cap);
  } catch (error) {
    if (request.signal.aborted) throw error;
    // The fetch's own refusals (a redirect, an answer too large) stay as they are.
    if (error instanceof Error && error.name === "ProviderError") throw error;
    throw new ProviderAnswerError(null, undefined, timedOut() ? "Request timed out." : "Connection error.", null, { cause: error });
  }
  if (!response.ok) {
    const text = await readTextWithin(response, request.cap).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    const json = parseJson(text);
    const error = json === undefined ? undefined : (json as { error?: unknown } | null)?.error;
    throw new ProviderAnswerError(response.status, error, json === undefined ? text : undefined, response.headers);
  }
  if (!response.body) return;
  let done = false;
  for await (const event of serverSentEvents(response.body)) {
    if (done) continue;
    if (event.data.startsWith("[DONE]")) {
      done = true;
      continue;
    }
    // Assistants' `thread.*` events are not chunks of a completion.
    if (event.event?.startsWith("thread.")) continue;
    const data = JSON.parse(event.data) as ChatChunk & { error?: unknown };
    if (data?.error) throw new ProviderAnswerError(null, data.error, undefined, response.headers);
    yield data;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One server-sent event: its `event` field (null when unnamed) and its data lines joined. */
export interface ServerSentEvent {
  event: string | null;
  data: string;
}

/**
 * The events of a `text/event-stream` body (the HTML standard's parsing): lines end in LF, CR or
 * CRLF; `:` lines are comments; an event ends at a blank line, and one without data is dropped.
 *
 * @example for await (const { event, data } of serverSentEvents(response.body)) …
 */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event: string | null = null;
  let data: string[] = [];
  const reader = body.getReader();
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (;;) {
        const end = lineEnd(buffer, start);
        // A CR at the buffer's end may be half of a CRLF: wait for the next bytes unless there are none.
        if (end < 0 || (buffer.charCodeAt(end) === 13 && end === buffer.length - 1 && !done)) break;
        const line = buffer.slice(start, end);
        start = end + (buffer.charCodeAt(end) === 13 && buffer.charCodeAt(end + 1) === 10 ? 2 : 1);
        if (line === "") {
          if (data.length) yield { event, data: data.join("\n") };
          event = null;
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
      }
      buffer = buffer.slice(start);
      if (done) break;
    }
    ended = true;
    // An event the stream ended inside (no blank line after it) is dropped, as the standard and the SDK drop it.
  } finally {
    // A reader that stops early (a reply past its bounds, an error event) lets the answer go.
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The index of the next CR or LF at or after `from`, or -1. */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return -1;
}
