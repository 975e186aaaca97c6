/**
 * Anthropic's Messages API for the mock model: the request checks the real API makes,
 * and the message bodies and server-sent events built from one scripted reply. The
 * same replies as the Chat Completions path (replies.ts), so a test scripts a reply
 * without caring which protocol the caller speaks. Kept free of I/O, like replies.ts.
 */
import { createHash } from "node:crypto";
import { isObject, type Json, type ScriptedReply, splitText, usageFor } from "./replies";

type JsonObject = { [key: string]: Json };

/** A refused request: answered with `status` and an Anthropic error body. */
export class MessagesRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the mock reads from a valid request; the rest is only recorded. */
export interface MessagesRequest {
  model: string;
  messages: JsonObject[];
  system: Json | undefined;
  stream: boolean;
}

/** The Anthropic usage object, cache fields included, as the real API sends it. */
export interface MessagesUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

export type ContentBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "text"; text: string }
  /** `arguments` is the scripted JSON text, streamed as is; `input` is what it parses to. */
  | { type: "tool_use"; id: string; name: string; input: Json; arguments: string };

/** One server-sent event: `event: <event>` and its JSON `data`, whose `type` repeats the name. */
export interface MessagesEvent {
  event: string;
  data: JsonObject;
}

/** Paths the Messages routes answer, under any base prefix (`/tenant/v1/messages`). */
export const isMessagesPath = (path: string): boolean => path.endsWith("/messages") || path.endsWith("/messages/count_tokens");

/**
 * The checks the real API makes before generating, answered 400 in its words. The
 * tool_use/tool_result pairing matters most: a translation that loses or renames a tool
 * call passes every schema, and only this refusal shows it.
 * `countTokens` checks a count_tokens body, which has no max_tokens.
 */
export function validateMessagesRequest(body: Json, countTokens = false): MessagesRequest {
  if (!isObject(body)) refuse("request body must be a JSON object");
  if (body.model === undefined) refuse("model: Field required");
  if (typeof body.model !== "string" || body.model === "") refuse("model: Input should be a non-empty string");
  if (!countTokens) {
    const max = body.max_tokens;
    if (max === undefined) refuse("max_tokens: Field required");
    if (typeof max !== "number" || !Number.isInteger(max)) refuse("max_tokens: Input should be a valid integer");
    if (max < 1) refuse("max_tokens: Input should be greater than or equal to 1");
  }
  const messages = body.messages;
  if (messages === undefined) refuse("messages: Field required");
  if (!Array.isArray(messages)) refuse("messages: Input should be a valid list");
  if (messages.length === 0) refuse("messages: at least one message is required");
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) refuse(`messages.${i}: Input should be a valid dictionary`);
    if (message.role !== "user" && message.role !== "assistant") {
      refuse(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    if (typeof message.content !== "string" && !Array.isArray(message.content)) {
      refuse(`messages.${i}.content: Input should be a string or a list of content blocks`);
    }
  }
  const checked = messages as JsonObject[];
  checkToolPairs(checked);
  return { model: body.model, messages: checked, system: body.system, stream: body.stream === true };
}

function refuse(message: string): never {
  throw new MessagesRequestError(400, message);
}

const blocksOf = (message: JsonObject | undefined): JsonObject[] =>
  Array.isArray(message?.content) ? message.content.filter((block): block is JsonObject => isObject(block)) : [];

const idsOf = (blocks: JsonObject[], type: string, field: string): string[] =>
  blocks.filter((block) => block.type === type).map((block) => (typeof block[field] === "string" ? (block[field] as string) : ""));

/**
 * Every tool_result answers a tool_use of the assistant message right before it, and every
 * tool_use of an assistant message that is followed by another is answered there. Stray
 * results are named first: a renamed id then shows as the result it broke.
 */
function checkToolPairs(messages: JsonObject[]): void {
  messages.forEach((message, i) => {
    const previous = messages[i - 1];
    const offered = previous?.role === "assistant" ? new Set(idsOf(blocksOf(previous), "tool_use", "id")) : new Set<string>();
    blocksOf(message).forEach((block, j) => {
      if (block.type !== "tool_result") return;
      const id = typeof block.tool_use_id === "string" ? block.tool_use_id : "";
      if (message.role === "user" && offered.has(id)) return;
      refuse(
        `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
          "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
      );
    });
  });
  messages.forEach((message, i) => {
    const next = messages[i + 1];
    if (message.role !== "assistant" || next === undefined) return;
    const answered = new Set(idsOf(blocksOf(next), "tool_result", "tool_use_id"));
    const unanswered = idsOf(blocksOf(message), "tool_use", "id").filter((id) => next.role !== "user" || !answered.has(id));
    if (unanswered.length === 0) return;
    refuse(
      `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(", ")}. ` +
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });
}

/**
 * What the estimates count: the system prompt and the messages, as the Chat Completions
 * path counts its messages (where the system prompt is one of them).
 */
export function estimatedInput(request: MessagesRequest): Json[] {
  return request.system === undefined ? request.messages : [request.system, ...request.messages];
}

/** count_tokens' answer: 4 characters a token, as every estimate of the mock. */
export function countTokens(request: MessagesRequest): number {
  return usageFor({}, estimatedInput(request)).prompt_tokens;
}

/**
 * The messages the echo reply reads: user turns that only carry tool results are left out,
 * so the echo repeats the person's last words as on the Chat Completions path, where tool
 * results are messages of their own role.
 */
export function echoInput(messages: JsonObject[]): Json[] {
  return messages.filter((message) => {
    const blocks = blocksOf(message);
    return typeof message.content === "string" || blocks.length === 0 || blocks.some((block) => block.type !== "tool_result");
  });
}

/**
 * The reply's usage in Anthropic's terms: cached prompt tokens are reported apart from the
 * rest (input_tokens excludes them), and nothing is written to the cache.
 */
export function messagesUsage(reply: ScriptedReply, input: Json[]): MessagesUsage {
  const usage = usageFor({ ...reply, usage_extra: undefined }, input);
  const cached = usage.prompt_tokens_details.cached_tokens;
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - cached),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: usage.completion_tokens,
  };
}

/** A stable stand-in for the opaque signature the real API puts on thinking. */
const signatureOf = (thinking: string): string => createHash("sha256").update(`mock-thinking:${thinking}`).digest("base64");

/** A scripted id is kept when it is already a Messages tool-use id, as a test scripting one expects. */
const TOOL_USE_ID = /^toolu_[A-Za-z0-9_-]+$/;

function parsedArguments(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    // A broken script stays broken on the wire, as a broken model's would.
    return text;
  }
}

/**
 * The reply's content blocks in the real order: thinking, text, tool uses. A text block is
 * left out when empty beside other blocks, since the real API refuses an empty text block
 * sent back to it.
 */
export function contentBlocks(reply: ScriptedReply, nextToolUseId: () => string): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (reply.reasoning !== undefined) blocks.push({ type: "thinking", thinking: reply.reasoning, signature: signatureOf(reply.reasoning) });
  for (const detail of reply.reasoning_details ?? []) {
    if (detail.type === "reasoning.encrypted" && typeof detail.data === "string") {
      blocks.push({ type: "redacted_thinking", data: detail.data });
      continue;
    }
    const thinking = typeof detail.text === "string" ? detail.text : typeof detail.summary === "string" ? detail.summary : "";
    blocks.push({ type: "thinking", thinking, signature: typeof detail.signature === "string" ? detail.signature : signatureOf(thinking) });
  }
  const calls = reply.tool_calls ?? [];
  if (reply.content || (calls.length === 0 && blocks.length === 0)) blocks.push({ type: "text", text: reply.content ?? "" });
  for (const call of calls) {
    const id = TOOL_USE_ID.test(call.id) ? call.id : nextToolUseId();
    blocks.push({ type: "tool_use", id, name: call.name, input: parsedArguments(call.arguments), arguments: call.arguments });
  }
  return blocks;
}

/** Stop reasons the real API sends, passed through when a script names one. */
const STOP_REASONS = new Set(["end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"]);
const FROM_FINISH_REASON: Record<string, string> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", content_filter: "refusal" };

export function stopReasonOf(reply: ScriptedReply): string {
  const scripted = reply.finish_reason;
  if (scripted !== undefined && STOP_REASONS.has(scripted)) return scripted;
  if (scripted !== undefined && FROM_FINISH_REASON[scripted]) return FROM_FINISH_REASON[scripted];
  return reply.tool_calls?.length ? "tool_use" : "end_turn";
}

export interface MessageMeta {
  id: string;
  model: string;
}

/** A block as it goes on the wire (the scripted argument text stays behind). */
function wireBlock(block: ContentBlock): JsonObject {
  if (block.type !== "tool_use") return { ...block };
  return { type: "tool_use", id: block.id, name: block.name, input: block.input };
}

/** The whole message of a non-streaming answer. `usage_extra` is laid over the usage as sent. */
export function messageBody(reply: ScriptedReply, meta: MessageMeta, blocks: ContentBlock[], usage: MessagesUsage): JsonObject {
  return {
    id: meta.id,
    type: "message",
    role: "assistant",
    model: meta.model,
    content: blocks.map(wireBlock),
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: { ...usage, ...reply.usage_extra },
  };
}

/** How a block opens in a stream: its text, thinking and input still empty. */
function startBlock(block: ContentBlock): JsonObject {
  switch (block.type) {
    case "text":
      return { type: "text", text: "" };
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" };
    case "redacted_thinking":
      return { ...block };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: {} };
  }
}

/** The deltas that fill a block: text and thinking by words, input JSON in pieces of at most 8 characters. */
function blockDeltas(block: ContentBlock): JsonObject[] {
  switch (block.type) {
    case "text":
      return splitText(block.text).map((text) => ({ type: "text_delta", text }));
    case "thinking":
      return [...splitText(block.thinking).map((thinking) => ({ type: "thinking_delta", thinking })), { type: "signature_delta", signature: block.signature }];
    case "redacted_thinking":
      return [];
    case "tool_use":
      return splitText(block.arguments, 8).map((partial_json) => ({ type: "input_json_delta", partial_json }));
  }
}

/**
 * Every event of a streamed answer, in the real API's order: message_start (no content
 * yet, the input usage), ping, each block's start, deltas and stop, then message_delta
 * (the stop reason and output tokens) and message_stop.
 */
export function messageEvents(reply: ScriptedReply, meta: MessageMeta, blocks: ContentBlock[], usage: MessagesUsage): MessagesEvent[] {
  const event = (type: string, fields: JsonObject = {}): MessagesEvent => ({ event: type, data: { type, ...fields } });
  const message = {
    id: meta.id,
    type: "message",
    role: "assistant",
    model: meta.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usage, output_tokens: 0, ...reply.usage_extra },
  };
  const events = [event("message_start", { message }), event("ping")];
  blocks.forEach((block, index) => {
    events.push(event("content_block_start", { index, content_block: startBlock(block) }));
    for (const delta of blockDeltas(block)) events.push(event("content_block_delta", { index, delta }));
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", {
      delta: { stop_reason: stopReasonOf(reply), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens, ...reply.usage_extra },
    }),
    event("message_stop"),
  );
  return events;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** Anthropic's error body; for scripted errors the reply's `content`, if any, is the message. */
export function messagesErrorBody(status: number, message?: string): JsonObject {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message: message ?? `Mock model error ${status}` } };
}
