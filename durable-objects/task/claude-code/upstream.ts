/**
 * One call of a harness, forwarded to the agent's provider with the real key (decision 0032):
 * Anthropic's Messages API as it is, or an OpenAI-compatible provider through the translation
 * of core/model-gateway. Either way the box gets Anthropic's wire format back, streamed as the
 * provider streams, and the gateway gets the whole reply in one shape to meter and store.
 *
 * @example
 *   const call = await forwardCall({ api: "openai", baseURL, apiKey, model, request, body, signal });
 *   if (call.ok) return new Response(call.stream, { headers: call.headers });
 */
import { MODEL_ANSWER_CAP } from "../../../core/http/answer-caps";
import { readTextWithin, withinCap } from "../../../core/http/read-within";
import { ChatStreamTranslator, messageOfCompletion } from "../../../core/model-gateway/from-chat";
import { type AssembledMessage, assembledOfMessage, MessageAccumulator } from "../../../core/model-gateway/message-stream";
import type { MessagesRequest, MessagesResponse } from "../../../core/model-gateway/messages";
import { SseReader } from "../../../core/model-gateway/sse";
import { chatRequestOf } from "../../../core/model-gateway/to-chat";
import { rateLimitResetAt } from "../../../core/providers/provider-error";

export type ModelApi = "openai" | "anthropic";

export interface UpstreamCall {
  api: ModelApi;
  baseURL: string;
  apiKey: string;
  /** The model the run's snapshot names: whatever the box asked for, this is what is called and priced. */
  model: string;
  request: MessagesRequest;
  /** The box's own request body, forwarded as is to an Anthropic provider (the model replaced). */
  body: Record<string, unknown>;
  /** The box's `anthropic-version` and `anthropic-beta` headers, forwarded to an Anthropic provider. */
  anthropicHeaders: Record<string, string>;
  signal: AbortSignal;
  now(): number;
}

/** The provider's failure, as the run's error records it (never its body whole). */
export interface UpstreamFailure {
  ok: false;
  status: number | null;
  message: string;
  resetAt: number | null;
}

export type Forwarded =
  | {
      ok: true;
      /** What the box reads: Anthropic's SSE events, or one message JSON. */
      stream: ReadableStream<Uint8Array>;
      contentType: string;
      /** The whole reply once the box's stream has ended; rejects when the provider broke off. */
      reply: Promise<AssembledMessage>;
      /** The exact body sent to the provider (its hash is the row's request hash). */
      sent: string;
    }
  | UpstreamFailure;

const encoder = new TextEncoder();

/** Forwards one call; answers the failure when the provider refused it before any reply. */
export async function forwardCall(call: UpstreamCall): Promise<Forwarded> {
  const base = call.baseURL.replace(/\/+$/, "");
  const streaming = call.request.stream === true;
  const sent = call.api === "anthropic" ? JSON.stringify({ ...call.body, model: call.model }) : JSON.stringify(chatRequestOf(call.request, call.model));
  const headers: Record<string, string> =
    call.api === "anthropic"
      ? { "content-type": "application/json", "x-api-key": call.apiKey, "anthropic-version": "2023-06-01", ...call.anthropicHeaders }
      : { "content-type": "application/json", authorization: `Bearer ${call.apiKey || "none"}` };
  let response: Response;
  try {
    response = await fetch(`${base}${call.api === "anthropic" ? "/messages" : "/chat/completions"}`, {
      method: "POST",
      headers,
      body: sent,
      redirect: "manual",
      signal: call.signal,
    });
  } catch (error) {
    if (call.signal.aborted) throw error;
    return { ok: false, status: null, message: `The model provider could not be reached: ${String(error)}`, resetAt: null };
  }
  if (response.status >= 300) return failure(response, call.now());
  const capped = withinCap(response, MODEL_ANSWER_CAP);
  if (!streaming) return wholeReply(capped, call, sent);
  return call.api === "anthropic" ? passThrough(capped, sent) : translated(capped, call.model, sent);
}

async function failure(response: Response, now: number): Promise<UpstreamFailure> {
  const text =
    response.status < 400
      ? `a redirect, which this platform does not follow; give the provider's final URL`
      : await readTextWithin(response, { peer: "the model provider", maxBytes: 64 * 1024 }).catch(() => "");
  await response.body?.cancel().catch(() => {});
  return {
    ok: false,
    status: response.status,
    message: `model provider answered ${response.status}: ${text}`,
    resetAt: response.status === 429 ? rateLimitResetAt(response.headers, now) : null,
  };
}

/** A non-streaming call: one JSON message for the box. */
async function wholeReply(response: Response, call: UpstreamCall, sent: string): Promise<Forwarded> {
  const answer = JSON.parse(await readTextWithin(response, MODEL_ANSWER_CAP)) as unknown;
  const message = call.api === "anthropic" ? (answer as Record<string, unknown>) : messageOfCompletion(answer, call.model);
  const body = encoder.encode(JSON.stringify(message));
  return {
    ok: true,
    stream: new Response(body).body!,
    contentType: "application/json",
    reply: Promise.resolve(assembledOfMessage(message as MessagesResponse)),
    sent,
  };
}

/** An Anthropic stream, passed to the box chunk by chunk while it is read for the row. */
function passThrough(response: Response, sent: string): Forwarded {
  const accumulator = new MessageAccumulator();
  const decoder = new TextDecoder();
  const { stream, reply } = relayed(
    response.body!,
    (chunk) => {
      accumulator.push(decoder.decode(chunk, { stream: true }));
      return [chunk];
    },
    () => accumulator.finish(),
  );
  return { ok: true, stream, contentType: "text/event-stream", reply, sent };
}

/** A Chat Completions stream, turned into Anthropic's events as its chunks arrive. */
function translated(response: Response, model: string, sent: string): Forwarded {
  const translator = new ChatStreamTranslator(model);
  const accumulator = new MessageAccumulator();
  const lines = new SseReader();
  const emit = (events: string[]) =>
    events.map((event) => {
      accumulator.push(event);
      return encoder.encode(event);
    });
  const { stream, reply } = relayed(
    response.body!,
    (chunk) => lines.push(chunk).flatMap((event) => emit(translator.pushData(event.data))),
    () => accumulator.finish(),
    () => [...lines.end().flatMap((event) => emit(translator.pushData(event.data))), ...emit(translator.end())],
    (message) => emit(translator.fail(message)),
  );
  return { ok: true, stream, contentType: "text/event-stream", reply, sent };
}

/**
 * The provider's body read through `map` into the box's stream. The reply settles once the
 * provider's stream ended (with `finish`'s closing bytes sent); a provider that broke off
 * sends `broke`'s bytes, errors the box's stream and rejects the reply.
 */
function relayed(
  source: ReadableStream<Uint8Array>,
  map: (chunk: Uint8Array) => Uint8Array[],
  assemble: () => AssembledMessage,
  finish: () => Uint8Array[] = () => [],
  broke: (message: string) => Uint8Array[] = () => [],
): { stream: ReadableStream<Uint8Array>; reply: Promise<AssembledMessage> } {
  let settle!: (message: AssembledMessage) => void;
  let fail!: (error: unknown) => void;
  const reply = new Promise<AssembledMessage>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  reply.catch(() => {});
  const reader = source.getReader();
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          // A pull that enqueues nothing is not called again: read until a chunk maps to bytes.
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            const mapped = map(value);
            for (const out of mapped) controller.enqueue(out);
            if (mapped.length) return;
          }
          for (const out of finish()) controller.enqueue(out);
          settle(assemble());
          controller.close();
        } catch (error) {
          for (const out of broke(String(error))) controller.enqueue(out);
          fail(error);
          controller.error(error);
          await reader.cancel(error).catch(() => {});
        }
      },
      async cancel(reason) {
        fail(new Error("the harness left before the reply ended"));
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, reply };
}
