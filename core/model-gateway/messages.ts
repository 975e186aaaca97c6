/**
 * The part of Anthropic's Messages API the model gateway speaks: the request a harness
 * (Claude Code) sends, the reply, its usage and its stream events, and the one reader that
 * checks a request's shape and bounds before anything is translated or forwarded.
 *
 * The reader refuses what the gateway cannot carry to any provider: server tools (web
 * search, code execution: only the provider could run them), `file` sources (Anthropic's
 * Files API), content block types it does not know. Unknown top-level fields and unknown
 * fields of a block (`cache_control`, `citations`) are ignored, since harnesses add new ones
 * faster than the gateway learns them.
 *
 * @example readMessagesRequest({ model: "m", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] })
 * // { ok: true, request: { model: "m", max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] } }
 */
import { nestsDeeperThan } from "../validation/depth";

export interface TextBlock {
  type: "text";
  text: string;
}
export type ImageSource = { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
export interface ImageBlock {
  type: "image";
  source: ImageSource;
}
/** A PDF (base64 or url), plain text, or content blocks given as a document. */
export type DocumentSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "text"; media_type: string; data: string }
  | { type: "content"; content: string | (TextBlock | ImageBlock)[] };
export interface DocumentBlock {
  type: "document";
  source: DocumentSource;
  title?: string;
  context?: string;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | (TextBlock | ImageBlock | DocumentBlock)[];
  is_error?: boolean;
}
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}
export type ContentBlock = TextBlock | ImageBlock | DocumentBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock;

export interface MessageParam {
  /** `system`: a turn Claude Code puts among the messages (its environment, a change of tools mid-conversation). */
  role: "user" | "assistant" | "system";
  content: string | ContentBlock[];
}
export interface Tool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}
export type ToolChoice =
  | { type: "auto" | "any" | "none"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean };

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlock[];
  tools?: Tool[];
  tool_choice?: ToolChoice;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  metadata?: { user_id?: string };
  /** `{ type: "enabled", budget_tokens }`, `{ type: "disabled" }` or a newer kind; kept as sent. */
  thinking?: { type: string; budget_tokens?: number };
}

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** A block of a reply: what a model writes (thinking included), never a tool result. */
export type ResponseBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;

export interface MessagesResponse {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ResponseBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export type ContentDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string };

export type StreamEvent =
  | { type: "message_start"; message: MessagesResponse }
  | { type: "content_block_start"; index: number; content_block: ResponseBlock }
  | { type: "content_block_delta"; index: number; delta: ContentDelta }
  | { type: "content_block_stop"; index: number }
  | { type: "message_delta"; delta: { stop_reason: StopReason | null; stop_sequence: string | null }; usage: Partial<MessagesUsage> }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error: { type: string; message: string } };

/** Bounds of one request; the byte size of the body is the caller's to bound before parsing. */
export const MESSAGES_LIMITS = { messages: 4_000, tools: 512, blocks: 4_000, stopSequences: 64, jsonDepth: 64, maxTokens: 1_000_000 } as const;

export type ReadRequest = { ok: true; request: MessagesRequest } | { ok: false; message: string };

/** A refusal, thrown inside the reader and answered as `{ ok: false }` by it. */
class Refusal extends Error {}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function object(value: unknown, at: string): Json {
  if (!isObject(value)) throw new Refusal(`${at} must be an object`);
  return value;
}
function string(value: unknown, at: string): string {
  if (typeof value !== "string") throw new Refusal(`${at} must be a string`);
  return value;
}
function nonEmpty(value: unknown, at: string): string {
  if (string(value, at).length === 0) throw new Refusal(`${at} must not be empty`);
  return value as string;
}
function number(value: unknown, at: string, min: number, max: number, whole = false): number {
  if (typeof value !== "number" || !Number.isFinite(value) || (whole && !Number.isInteger(value)) || value < min || value > max) {
    throw new Refusal(`${at} must be ${whole ? "a whole number" : "a number"} from ${min} to ${max}`);
  }
  return value;
}
function array(value: unknown, at: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new Refusal(`${at} must be an array`);
  if (value.length > max) throw new Refusal(`${at} holds ${value.length} items; at most ${max} are accepted`);
  return value;
}
/** A JSON object the gateway will serialize again (tool input, input schema): bounded in depth first. */
function jsonObject(value: unknown, at: string): Json {
  const checked = object(value, at);
  if (nestsDeeperThan(checked, MESSAGES_LIMITS.jsonDepth)) throw new Refusal(`${at} nests deeper than ${MESSAGES_LIMITS.jsonDepth} levels`);
  return checked;
}
/** `{ [key]: read(value) }` when the field is there (null counts as absent), else `{}`: spread into what is built. */
const optional = <K extends string, T>(source: Json, key: K, read: (value: unknown) => T): { [P in K]?: T } =>
  source[key] === undefined || source[key] === null ? {} : ({ [key]: read(source[key]) } as { [P in K]?: T });

function text(block: Json, at: string): TextBlock {
  return { type: "text", text: string(block.text, `${at}.text`) };
}

function image(block: Json, at: string): ImageBlock {
  const source = object(block.source, `${at}.source`);
  if (source.type === "base64") {
    return {
      type: "image",
      source: { type: "base64", media_type: nonEmpty(source.media_type, `${at}.source.media_type`), data: string(source.data, `${at}.source.data`) },
    };
  }
  if (source.type === "url") return { type: "image", source: { type: "url", url: nonEmpty(source.url, `${at}.source.url`) } };
  throw new Refusal(`${at}.source.type must be "base64" or "url" (files uploaded to a provider cannot be carried)`);
}

function document(block: Json, at: string): DocumentBlock {
  const source = object(block.source, `${at}.source`);
  const where = `${at}.source`;
  let read: DocumentSource;
  if (source.type === "base64" || source.type === "text") {
    read = { type: source.type, media_type: nonEmpty(source.media_type, `${where}.media_type`), data: string(source.data, `${where}.data`) };
  } else if (source.type === "url") {
    read = { type: "url", url: nonEmpty(source.url, `${where}.url`) };
  } else if (source.type === "content") {
    const content = source.content;
    read = {
      type: "content",
      content: typeof content === "string" ? content : (blocks(content, `${where}.content`, ["text", "image"]) as (TextBlock | ImageBlock)[]),
    };
  } else {
    throw new Refusal(`${where}.type must be "base64", "url", "text" or "content" (files uploaded to a provider cannot be carried)`);
  }
  return {
    type: "document",
    source: read,
    ...optional(block, "title", (v) => string(v, `${at}.title`)),
    ...optional(block, "context", (v) => string(v, `${at}.context`)),
  };
}

function toolResult(block: Json, at: string): ToolResultBlock {
  const content = block.content;
  return {
    type: "tool_result",
    tool_use_id: nonEmpty(block.tool_use_id, `${at}.tool_use_id`),
    ...(content === undefined || content === null
      ? {}
      : { content: typeof content === "string" ? content : (blocks(content, `${at}.content`, ["text", "image", "document"]) as ToolResultBlock["content"]) }),
    ...optional(block, "is_error", (v) => {
      if (typeof v !== "boolean") throw new Refusal(`${at}.is_error must be a boolean`);
      return v;
    }),
  };
}

const BLOCK_READERS: Record<ContentBlock["type"], (block: Json, at: string) => ContentBlock> = {
  text,
  image,
  document,
  tool_result: toolResult,
  tool_use: (block, at) => ({
    type: "tool_use",
    id: nonEmpty(block.id, `${at}.id`),
    name: nonEmpty(block.name, `${at}.name`),
    input: jsonObject(block.input, `${at}.input`),
  }),
  thinking: (block, at) => ({
    type: "thinking",
    thinking: string(block.thinking, `${at}.thinking`),
    ...optional(block, "signature", (v) => string(v, `${at}.signature`)),
  }),
  redacted_thinking: (block, at) => ({ type: "redacted_thinking", data: string(block.data, `${at}.data`) }),
};

/** The blocks of one content array, each of a type `allowed` names. */
function blocks(value: unknown, at: string, allowed: readonly ContentBlock["type"][]): ContentBlock[] {
  return array(value, at, MESSAGES_LIMITS.blocks).map((item, i) => {
    const where = `${at}[${i}]`;
    const block = object(item, where);
    const type = string(block.type, `${where}.type`) as ContentBlock["type"];
    if (!allowed.includes(type)) {
      const known = Object.hasOwn(BLOCK_READERS, type);
      throw new Refusal(
        `${where}.type ${JSON.stringify(type).slice(0, 80)} ${known ? "is not allowed here" : "is not supported"}; expected one of ${allowed.join(", ")}`,
      );
    }
    return BLOCK_READERS[type](block, where);
  });
}

const USER_BLOCKS = ["text", "image", "document", "tool_result"] as const;
const ASSISTANT_BLOCKS = ["text", "tool_use", "thinking", "redacted_thinking"] as const;
const SYSTEM_BLOCKS = ["text"] as const;

function message(value: unknown, at: string): MessageParam {
  const source = object(value, at);
  const role = source.role;
  if (role !== "user" && role !== "assistant" && role !== "system") throw new Refusal(`${at}.role must be "user", "assistant" or "system"`);
  const content = source.content;
  if (typeof content === "string") return { role, content };
  return { role, content: blocks(content, `${at}.content`, role === "user" ? USER_BLOCKS : role === "system" ? SYSTEM_BLOCKS : ASSISTANT_BLOCKS) };
}

function tool(value: unknown, at: string): Tool {
  const source = object(value, at);
  if (source.type !== undefined && source.type !== null && source.type !== "custom") {
    throw new Refusal(
      `${at} is a server tool (type ${JSON.stringify(source.type).slice(0, 80)}), which the model gateway cannot offer; only custom tools are carried`,
    );
  }
  return {
    name: nonEmpty(source.name, `${at}.name`),
    ...optional(source, "description", (v) => string(v, `${at}.description`)),
    input_schema: jsonObject(source.input_schema, `${at}.input_schema`),
  };
}

function toolChoice(value: unknown, at: string): ToolChoice {
  const source = object(value, at);
  const parallel = optional(source, "disable_parallel_tool_use", (v) => {
    if (typeof v !== "boolean") throw new Refusal(`${at}.disable_parallel_tool_use must be a boolean`);
    return v;
  });
  if (source.type === "tool") return { type: "tool", name: nonEmpty(source.name, `${at}.name`), ...parallel };
  if (source.type === "auto" || source.type === "any" || source.type === "none") return { type: source.type, ...parallel };
  throw new Refusal(`${at}.type must be "auto", "any", "tool" or "none"`);
}

function system(value: unknown): string | TextBlock[] {
  if (typeof value === "string") return value;
  return blocks(value, "system", ["text"]) as TextBlock[];
}

/** The Messages request in `json`, or the first thing wrong with it, naming the field. */
export function readMessagesRequest(json: unknown): ReadRequest {
  try {
    const body = object(json, "the request body");
    const request: MessagesRequest = {
      model: nonEmpty(body.model, "model"),
      max_tokens: number(body.max_tokens, "max_tokens", 1, MESSAGES_LIMITS.maxTokens, true),
      messages: array(body.messages, "messages", MESSAGES_LIMITS.messages).map((m, i) => message(m, `messages[${i}]`)),
      ...optional(body, "system", system),
      ...optional(body, "tools", (v) => array(v, "tools", MESSAGES_LIMITS.tools).map((t, i) => tool(t, `tools[${i}]`))),
      ...optional(body, "tool_choice", (v) => toolChoice(v, "tool_choice")),
      ...optional(body, "temperature", (v) => number(v, "temperature", 0, 1)),
      ...optional(body, "top_p", (v) => number(v, "top_p", 0, 1)),
      ...optional(body, "top_k", (v) => number(v, "top_k", 1, 1_000_000, true)),
      ...optional(body, "stop_sequences", (v) => array(v, "stop_sequences", MESSAGES_LIMITS.stopSequences).map((s, i) => nonEmpty(s, `stop_sequences[${i}]`))),
      ...optional(body, "stream", (v) => {
        if (typeof v !== "boolean") throw new Refusal("stream must be a boolean");
        return v;
      }),
      ...optional(body, "metadata", (v) => optional(object(v, "metadata"), "user_id", (id) => string(id, "metadata.user_id"))),
      ...optional(body, "thinking", (v) => {
        const thinking = object(v, "thinking");
        return {
          type: nonEmpty(thinking.type, "thinking.type"),
          ...optional(thinking, "budget_tokens", (b) => number(b, "thinking.budget_tokens", 0, MESSAGES_LIMITS.maxTokens, true)),
        };
      }),
    };
    if (request.messages.length === 0) throw new Refusal("messages must hold at least one message");
    return { ok: true, request };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, message: error.message };
    throw error;
  }
}
