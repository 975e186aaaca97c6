import { MODEL_ANSWER_CAP } from "../../../core/http/answer-caps";
import { answerTooLargeIn } from "../../../core/http/read-within";
import type { Redactor } from "../../../core/output/redaction";
import { utf8ByteLength } from "../../../core/projection/projection";
import { type ChatUsage, chatStream, ProviderAnswerError } from "../../../core/providers/chat-stream";
import { providerErrorMessage, rateLimitResetAt } from "../../../core/providers/provider-error";
import { addReasoningFragment, type ReasoningBlock, reasoningTextOf } from "../../../core/runs/reasoning-blocks";
import type { Usage } from "../../../core/usage/pricing";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
  reasoning: string;
  /** Provider reasoning blocks (`reasoning_details`) as streamed, for metadata only (RUN-016). */
  reasoningBlocks: ReasoningBlock[];
  usage: Usage | null;
  finishReason: string | null;
  latencyMs: number;
  /** Time to the first streamed token. */
  firstTokenMs: number | null;
  providerModel: string | null;
}

export interface ModelRequest {
  baseURL: string;
  apiKey: string;
  model: string;
  messages: unknown[];
  tools: unknown[];
  thinkingLevel: string;
  signal: AbortSignal;
  onDelta: (kind: "content" | "reasoning", text: string) => void;
  /** Applied to a failure's message before it is cut short, so no part of a secret survives. */
  redactor: Redactor;
  /** Bounds on one reply; defaults when omitted. */
  limits?: Partial<ReplyLimits>;
  /** Sampling temperature; the provider's default when omitted (generations never set it). */
  temperature?: number;
  /** The most tokens the reply may take; the provider's default when omitted (generations never set it). */
  maxTokens?: number;
}

/** What one model reply may hold: the object keeps it in memory whole before committing it. */
export interface ReplyLimits {
  /** UTF-8 bytes of content, reasoning, reasoning blocks (as serialized) and tool calls together. */
  replyBytes: number;
  /** Tool calls in one reply. */
  toolCalls: number;
  /** Provider reasoning blocks in one reply (fragments without an index each open one). */
  reasoningBlocks: number;
}

export const DEFAULT_REPLY_LIMITS: ReplyLimits = { replyBytes: 2 * 1024 * 1024, toolCalls: 64, reasoningBlocks: 256 };

/**
 * A failed model call, with what the run's error entry needs (never the prompt). The
 * message is the provider's answer reduced to one short redacted line (providerErrorMessage):
 * the body may come from a server the tenant runs, and the message reaches rows and logs.
 */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(
    message: string,
    readonly httpStatus: number | null,
    readonly providerCode: string | null,
    /** The run error's code: `provider.error`, or the bound a reply broke. */
    readonly code = "provider.error",
    /** When a rate limit (429) resets, as the provider's headers said (epoch ms); null when unsaid. */
    readonly resetAt: number | null = null,
  ) {
    super(message);
  }
}

/**
 * One streamed Chat Completions call, attempted exactly once (EXACT-006: no automatic retry).
 * Deltas go to `onDelta` as they arrive; the reply is assembled from the stream.
 */
export async function callModel(request: ModelRequest): Promise<ModelReply> {
  const params = {
    model: request.model,
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools.length ? { tools: request.tools } : {}),
    ...(request.thinkingLevel !== "off" ? { reasoning_effort: request.thinkingLevel } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
  };
  const started = Date.now();
  let firstTokenMs: number | null = null;
  let content = "";
  let sawContent = false;
  let reasoning = "";
  const reasoningBlocks: ReasoningBlock[] = [];
  let usage: Usage | null = null;
  let finishReason: string | null = null;
  let providerModel: string | null = null;
  const calls: ToolCall[] = [];
  const limits = { ...DEFAULT_REPLY_LIMITS, ...request.limits };
  let replyBytes = 0;
  // Counted as it streams, so a reply past a bound stops there instead of growing in memory.
  const grow = (text: string) => {
    replyBytes += utf8ByteLength(text);
    if (replyBytes > limits.replyBytes) {
      throw new ProviderError(`The model's reply passed ${limits.replyBytes} bytes; it was stopped and not stored`, null, null, "provider.reply_too_large");
    }
  };
  // Blocks are kept beside the reasoning text (their encrypted data has no text at all), so
  // every fragment counts whole, and their number is bounded too.
  const addBlock = (fragment: unknown) => {
    grow(JSON.stringify(fragment) ?? "");
    addReasoningFragment(reasoningBlocks, fragment);
    if (reasoningBlocks.length > limits.reasoningBlocks) {
      throw new ProviderError(
        `The model's reply passed ${limits.reasoningBlocks} reasoning blocks; it was stopped and not stored`,
        null,
        null,
        "provider.reply_too_large",
      );
    }
  };
  try {
    const stream = chatStream({
      baseURL: request.baseURL,
      apiKey: request.apiKey || "none",
      body: params,
      signal: request.signal,
      fetch: fetchWithoutRedirects,
      cap: MODEL_ANSWER_CAP,
    });
    for await (const chunk of stream) {
      providerModel ??= chunk.model ?? null;
      if (chunk.usage) usage = readUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      const details = Array.isArray(delta.reasoning_details) ? delta.reasoning_details : [];
      for (const fragment of details) addBlock(fragment);
      // Providers sending both a text field and details carry the same text twice: one is streamed.
      const thought = delta.reasoning_content ?? delta.reasoning ?? details.map(reasoningTextOf).join("");
      if (thought) {
        grow(thought);
        firstTokenMs ??= Date.now() - started;
        reasoning += thought;
        request.onDelta("reasoning", thought);
      }
      if (delta.content) {
        grow(delta.content);
        firstTokenMs ??= Date.now() - started;
        sawContent = true;
        content += delta.content;
        request.onDelta("content", delta.content);
      }
      for (const part of delta.tool_calls ?? []) {
        if (part.index >= limits.toolCalls || !(part.index >= 0)) {
          throw new ProviderError(
            `The model asked for more than ${limits.toolCalls} tool calls in one reply; it was stopped and not stored`,
            null,
            null,
            "provider.too_many_tool_calls",
          );
        }
        grow((part.id ?? "") + (part.function?.name ?? "") + (part.function?.arguments ?? ""));
        const call = (calls[part.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += part.function.name;
        if (part.function?.arguments) call.function.arguments += part.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (error) {
    if (request.signal.aborted || error instanceof ProviderError) throw error;
    const tooLarge = answerTooLargeIn(error);
    if (tooLarge) throw new ProviderError(tooLarge.message, null, null, "provider.reply_too_large");
    throw toProviderError(error, request.redactor);
  }
  const toolCalls = calls.filter(Boolean).map((call, i) => ({ ...call, id: call.id || `call_${started}_${i}` }));
  return {
    content: sawContent ? content : null,
    toolCalls,
    reasoning,
    reasoningBlocks,
    usage,
    finishReason,
    latencyMs: Date.now() - started,
    firstTokenMs,
    providerModel,
  };
}

/**
 * The provider's fetch, refusing redirects: the egress check (HARDEN-4) vetted the base URL
 * only, and a redirect could lead the request, key and prompt included, to any host.
 */
async function fetchWithoutRedirects(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, { ...init, redirect: "manual" });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new ProviderError(
      `The provider answered ${response.status} with a redirect, which this platform does not follow; give its final URL as model_base_url`,
      response.status,
      null,
      "provider.url_refused",
    );
  }
  return response;
}

function readUsage(raw: ChatUsage): Usage {
  return {
    prompt_tokens: raw.prompt_tokens ?? 0,
    completion_tokens: raw.completion_tokens ?? 0,
    cached_tokens: raw.prompt_tokens_details?.cached_tokens ?? 0,
    reasoning_tokens: raw.completion_tokens_details?.reasoning_tokens ?? 0,
    ...(typeof raw.cost === "number" ? { cost: raw.cost } : {}),
  };
}

function toProviderError(error: unknown, redactor: Redactor): ProviderError {
  if (error instanceof ProviderAnswerError) {
    const code = typeof error.code === "string" ? error.code.slice(0, 100) : null;
    return new ProviderError(
      providerErrorMessage(`model provider answered ${error.status ?? "without a status"}: ${error.message}`, redactor),
      error.status ?? null,
      code,
      "provider.error",
      error.status === 429 ? rateLimitResetAt(error.headers, Date.now()) : null,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(providerErrorMessage(`model call failed: ${message}`, redactor), null, null);
}
