/**
 * Reply scripts for the mock model: validation of what tests queue, and the
 * OpenAI Chat Completions bodies (whole and streamed) built from one reply.
 * Kept free of I/O so the wire format can be read in one place.
 */

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** Always a JSON string on the wire, whatever form the script used. */
  arguments: string;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

export interface ScriptedReply {
  /**
   * Taken only by a request whose last message's text contains this: agents that share a
   * model name (a task's attempts side by side) each take their own reply.
   */
  when?: string;
  content?: string;
  tool_calls?: ScriptedToolCall[];
  reasoning?: string;
  /** Provider reasoning blocks, streamed as OpenRouter does: `reasoning_details` fragments per block index. */
  reasoning_details?: JsonObject[];
  usage?: ScriptedUsage;
  /** Fields laid over the usage as sent, whatever their values: a provider's `cost`, or a broken report. */
  usage_extra?: JsonObject;
  status?: number;
  /** Headers sent with a scripted error `status` (a rate limit's retry-after). */
  headers?: Record<string, string>;
  /** Answers 307 (method and body kept) with this Location instead of a completion. */
  redirect_to?: string;
  delay_ms?: number;
  /**
   * After `delay_ms`, waits until `POST /__release` names this hold: the test, not a clock,
   * decides how long the caller waits on its model (a burst of requests answered meanwhile).
   */
  hold?: string;
  stream_chunk_ms?: number;
  finish_reason?: string;
}

/** The OpenAI usage object, details included, as the real API sends it. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export class ScriptError extends Error {}

const REPLY_FIELDS = new Set([
  "when",
  "content",
  "tool_calls",
  "reasoning",
  "reasoning_details",
  "usage",
  "usage_extra",
  "status",
  "headers",
  "redirect_to",
  "delay_ms",
  "hold",
  "stream_chunk_ms",
  "finish_reason",
]);
const USAGE_FIELDS = new Set(["prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens"]);
const TOOL_CALL_FIELDS = new Set(["id", "name", "arguments"]);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Unknown fields are rejected so a typo in a test script fails loudly instead of being ignored. */
function rejectUnknown(obj: JsonObject, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) throw new ScriptError(`${where}.${key} is not a known field`);
  }
}

/**
 * Validates a `POST /__script` body. `nextCallId` hands out `call_<n>` ids so they
 * are fixed when queued and a test can predict them.
 */
export function parseScript(body: unknown, nextCallId: () => string): ScriptedReply[] {
  if (!isObject(body)) throw new ScriptError("body must be a JSON object with a replies array");
  if (!Array.isArray(body.replies)) throw new ScriptError("replies must be an array");
  return body.replies.map((raw, i) => parseReply(raw, `replies[${i}]`, nextCallId));
}

function parseReply(raw: Json, where: string, nextCallId: () => string): ScriptedReply {
  if (!isObject(raw)) throw new ScriptError(`${where} must be an object`);
  rejectUnknown(raw, REPLY_FIELDS, where);
  const reply: ScriptedReply = {};
  for (const key of ["when", "content", "reasoning", "finish_reason", "redirect_to", "hold"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "string") throw new ScriptError(`${where}.${key} must be a string`);
    reply[key] = value;
  }
  for (const key of ["delay_ms", "stream_chunk_ms"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (!isCount(value)) throw new ScriptError(`${where}.${key} must be a non-negative integer`);
    reply[key] = value;
  }
  if (raw.status !== undefined) {
    const status = raw.status;
    if (!isCount(status) || status < 400 || status > 599) {
      throw new ScriptError(`${where}.status must be an HTTP error status (400-599)`);
    }
    reply.status = status;
  }
  if (raw.headers !== undefined) {
    const headers = raw.headers;
    if (!isObject(headers) || !Object.values(headers).every((v) => typeof v === "string")) {
      throw new ScriptError(`${where}.headers must be an object of strings`);
    }
    reply.headers = headers as Record<string, string>;
  }
  if (raw.reasoning_details !== undefined) {
    const blocks = raw.reasoning_details;
    if (!Array.isArray(blocks) || !blocks.every((b) => isObject(b) && typeof b.type === "string")) {
      throw new ScriptError(`${where}.reasoning_details must be an array of objects with a string type`);
    }
    if (reply.reasoning !== undefined) throw new ScriptError(`${where}: give reasoning or reasoning_details, not both`);
    reply.reasoning_details = blocks as JsonObject[];
  }
  if (raw.usage !== undefined) reply.usage = parseUsage(raw.usage, `${where}.usage`);
  if (raw.usage_extra !== undefined) {
    if (!isObject(raw.usage_extra)) throw new ScriptError(`${where}.usage_extra must be an object`);
    reply.usage_extra = raw.usage_extra;
  }
  if (raw.tool_calls !== undefined) {
    const calls = raw.tool_calls;
    if (!Array.isArray(calls)) throw new ScriptError(`${where}.tool_calls must be an array`);
    reply.tool_calls = calls.map((call, j) => parseToolCall(call, `${where}.tool_calls[${j}]`, nextCallId));
  }
  return reply;
}

function parseUsage(raw: Json, where: string): ScriptedUsage {
  if (!isObject(raw)) throw new ScriptError(`${where} must be an object`);
  rejectUnknown(raw, USAGE_FIELDS, where);
  const usage: Partial<ScriptedUsage> = {};
  for (const key of USAGE_FIELDS) {
    const value = raw[key];
    const required = key === "prompt_tokens" || key === "completion_tokens";
    if (value === undefined && !required) continue;
    if (!isCount(value)) throw new ScriptError(`${where}.${key} must be a non-negative integer`);
    usage[key as keyof ScriptedUsage] = value;
  }
  return usage as ScriptedUsage;
}

function parseToolCall(raw: Json, where: string, nextCallId: () => string): ScriptedToolCall {
  if (!isObject(raw)) throw new ScriptError(`${where} must be an object`);
  rejectUnknown(raw, TOOL_CALL_FIELDS, where);
  if (typeof raw.name !== "string" || raw.name === "") {
    throw new ScriptError(`${where}.name must be a non-empty string`);
  }
  if (raw.id !== undefined && (typeof raw.id !== "string" || raw.id === "")) {
    throw new ScriptError(`${where}.id must be a non-empty string`);
  }
  let args: string;
  if (raw.arguments === undefined) args = "{}";
  else if (isObject(raw.arguments)) args = JSON.stringify(raw.arguments);
  else if (typeof raw.arguments === "string") args = raw.arguments;
  else throw new ScriptError(`${where}.arguments must be an object or a JSON string`);
  return { id: typeof raw.id === "string" ? raw.id : nextCallId(), name: raw.name, arguments: args };
}

/** The reply used when nothing is queued: lets smoke tests run without scripting. */
export function echoReply(messages: Json[]): ScriptedReply {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!isObject(message) || message.role !== "user") continue;
    return { content: `echo: ${textOf(message.content ?? null)}` };
  }
  return { content: "echo: " };
}

/** The text of a request's last message, which a reply's `when` is matched against. */
export function lastMessageText(messages: Json[]): string {
  const last = messages.at(-1);
  return isObject(last) ? textOf(last.content ?? null) : "";
}

function textOf(content: Json): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part): part is JsonObject => isObject(part) && part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join(" ");
}

/** Rough counts (4 characters a token) so callers that meter usage always see numbers. */
export function usageFor(reply: ScriptedReply, messages: Json[]): WireUsage {
  const given = reply.usage;
  const prompt = given?.prompt_tokens ?? Math.ceil(JSON.stringify(messages).length / 4);
  const completion = given?.completion_tokens ?? Math.ceil(completionText(reply).length / 4);
  const reasoning = given ? (given.reasoning_tokens ?? 0) : Math.ceil((reply.reasoning ?? "").length / 4);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: given?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
    ...reply.usage_extra,
  } as WireUsage;
}

function completionText(reply: ScriptedReply): string {
  const calls = (reply.tool_calls ?? []).map((call) => call.name + call.arguments).join("");
  return (reply.reasoning ?? "") + (reply.reasoning_details ?? []).map(detailText).join("") + (reply.content ?? "") + calls;
}

/** The readable text of a reasoning block: its text or summary. */
function detailText(block: JsonObject): string {
  return typeof block.text === "string" ? block.text : typeof block.summary === "string" ? block.summary : "";
}

/**
 * Deltas of reasoning blocks as OpenRouter streams them: each text block in pieces under
 * its index, the first piece carrying the block's other fields and the signature coming
 * last; the readable text also as `reasoning`. A block without text goes whole.
 */
function reasoningDetailDeltas(blocks: JsonObject[]): JsonObject[] {
  return blocks.flatMap((block, index) => {
    const { text, signature, ...rest } = block;
    const fields: JsonObject = rest;
    const type: Json = block.type ?? null;
    if (typeof text !== "string") return [{ reasoning_details: [{ ...block, index }] }];
    const pieces = splitText(text);
    const deltas: JsonObject[] = (pieces.length ? pieces : [""]).map((piece, i) => {
      const fragment: JsonObject = i === 0 ? { ...fields, index, text: piece } : { type, index, text: piece };
      return { reasoning: piece, reasoning_details: [fragment] };
    });
    if (signature !== undefined) deltas.push({ reasoning_details: [{ type, index, text: "", signature }] });
    return deltas;
  });
}

export function finishReasonOf(reply: ScriptedReply): string {
  return reply.finish_reason ?? (reply.tool_calls?.length ? "tool_calls" : "stop");
}

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

export function completionBody(reply: ScriptedReply, meta: CompletionMeta, usage: WireUsage): JsonObject {
  const calls = reply.tool_calls ?? [];
  const message: JsonObject = {
    role: "assistant",
    content: reply.content ?? (calls.length ? null : ""),
    refusal: null,
  };
  if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning;
  if (reply.reasoning_details !== undefined) {
    message.reasoning = reply.reasoning_details.map(detailText).join("");
    message.reasoning_details = reply.reasoning_details.map((block, index) => ({ ...block, index }));
  }
  if (calls.length) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(reply) }],
    usage: { ...usage },
  };
}

/** Small pieces, as a real model streams: words, and no piece over 12 characters. */
export function splitText(text: string, max = 12): string[] {
  const pieces: string[] = [];
  for (const word of text.match(/\S+\s*|\s+/g) ?? []) {
    const chars = Array.from(word);
    for (let i = 0; i < chars.length; i += max) pieces.push(chars.slice(i, i + max).join(""));
  }
  return pieces;
}

/**
 * Every `chat.completion.chunk` for one reply, in order: role, reasoning, content,
 * tool-call fragments, the finishing chunk, then the usage chunk when asked for.
 */
export function streamChunks(reply: ScriptedReply, meta: CompletionMeta, usage: WireUsage, includeUsage: boolean): JsonObject[] {
  const chunk = (delta: JsonObject, finish: string | null = null): JsonObject => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const calls = reply.tool_calls ?? [];
  const chunks: JsonObject[] = [];
  const hasContent = reply.content !== undefined || calls.length === 0;
  chunks.push(chunk({ role: "assistant", content: hasContent ? "" : null, refusal: null }));
  for (const piece of splitText(reply.reasoning ?? "")) chunks.push(chunk({ reasoning_content: piece }));
  for (const delta of reasoningDetailDeltas(reply.reasoning_details ?? [])) chunks.push(chunk(delta));
  for (const piece of splitText(reply.content ?? "")) chunks.push(chunk({ content: piece }));
  calls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of splitText(call.arguments, 8)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReasonOf(reply)));
  if (includeUsage) {
    chunks.push({
      id: meta.id,
      object: "chat.completion.chunk",
      created: meta.created,
      model: meta.model,
      choices: [],
      usage: { ...usage },
    });
  }
  return chunks;
}

const ERROR_KINDS: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "permission_error", code: null },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
};

/** OpenAI-style error body; for scripted errors the reply's `content`, if any, is the message. */
export function errorBody(status: number, message?: string, code?: string): JsonObject {
  const kind = ERROR_KINDS[status] ?? { type: status >= 500 ? "server_error" : "invalid_request_error", code: null };
  const error = { message: message ?? `Mock model error ${status}`, type: kind.type, code: code ?? kind.code };
  return { error: { ...error, param: null } };
}
