/**
 * The whole reply read out of an Anthropic Messages stream, for the gateway's metering and
 * transcript (TASK-016). The gateway runs every streamed reply through it, an Anthropic
 * provider's as it passes and the ChatStreamTranslator's own output alike, and a whole
 * reply through `assembledOfMessage`, so what it records has one shape whichever way the
 * reply came.
 *
 * The stream arrives in pieces cut anywhere (inside an event, a line, a UTF-8 character).
 * Blocks are placed by their `index`; a tool call's input is its `partial_json` fragments
 * parsed once the block ends; usage is message_start's, each figure replaced by the one a
 * later message_delta carries (Anthropic's figures there are totals, not increments).
 *
 * @example const reply = new MessageAccumulator();
 * reply.push('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":3,"output_tokens":0}}}\n\n');
 * reply.push('event: message_stop\ndata: {"type":"message_stop"}\n\n');
 * reply.finish(); // { id: "msg_1", model: "m", content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 0 }, complete: true, … }
 */
import type { MessagesResponse, MessagesUsage, RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolUseBlock } from "./messages";
import { SseReader } from "./sse";

/** A tool call as assembled; `input_text` holds what was streamed when it was not a JSON object (`input` is then `{}`). */
export type AssembledToolUse = ToolUseBlock & { input_text?: string };
/** A block of a kind the gateway does not read (a server tool's, say), kept as it started. */
export interface OtherBlock {
  type: "other";
  block: Record<string, unknown>;
}
export type AssembledBlock = TextBlock | AssembledToolUse | ThinkingBlock | RedactedThinkingBlock | OtherBlock;

export interface AssembledMessage {
  id: string | null;
  model: string | null;
  content: AssembledBlock[];
  /** As the provider said it: a reason newer than the gateway's list is kept too. */
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
  /** The stream's `error` event, when it sent one. */
  error: { type: string; message: string } | null;
  /** Whether `message_stop` came: a stream cut short is incomplete, whatever it held. */
  complete: boolean;
  /** Events that were not JSON objects, skipped. */
  unreadable: number;
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** A block being assembled, with the JSON its tool call has been sent so far. */
interface Building {
  block: AssembledBlock;
  json: string | null;
}

/** Anthropic's usage fields the accumulator keeps; message_delta may carry any of them. */
const USAGE_FIELDS = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const;

export class MessageAccumulator {
  readonly #sse = new SseReader();
  #blocks: (Building | undefined)[] = [];
  #message: AssembledMessage = {
    id: null,
    model: null,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 },
    error: null,
    complete: false,
    unreadable: 0,
  };
  #finished = false;

  /** A piece of the stream, cut anywhere. */
  push(piece: string | Uint8Array): void {
    if (this.#finished) return;
    for (const event of this.#sse.push(piece)) this.#event(event.data);
  }

  /** The stream ended: the reply as far as it came. */
  finish(): AssembledMessage {
    if (!this.#finished) {
      for (const event of this.#sse.end()) this.#event(event.data);
      this.#finished = true;
      for (const building of this.#blocks) if (building) settle(building);
      this.#message.content = this.#blocks.filter((b) => b !== undefined).map((b) => b.block);
    }
    return this.#message;
  }

  #event(data: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      parsed = null;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      this.#message.unreadable++;
      return;
    }
    const event = parsed as Json;
    const message = this.#message;
    switch (event.type) {
      case "message_start": {
        const start = record(event.message);
        message.id = text(start.id) || null;
        message.model = text(start.model) || null;
        this.#usage(start.usage);
        if (Array.isArray(start.content)) for (const [i, block] of start.content.entries()) this.#begin(i, block);
        return;
      }
      case "content_block_start":
        if (isIndex(event.index)) this.#begin(event.index, event.content_block);
        return;
      case "content_block_delta":
        if (isIndex(event.index)) this.#delta(event.index, record(event.delta));
        return;
      case "content_block_stop": {
        const building = isIndex(event.index) ? this.#blocks[event.index] : undefined;
        if (building) settle(building);
        return;
      }
      case "message_delta": {
        const delta = record(event.delta);
        if (typeof delta.stop_reason === "string") message.stop_reason = delta.stop_reason;
        if (typeof delta.stop_sequence === "string") message.stop_sequence = delta.stop_sequence;
        this.#usage(event.usage);
        return;
      }
      case "message_stop":
        message.complete = true;
        return;
      case "error": {
        const error = record(event.error);
        message.error = { type: text(error.type) || "error", message: text(error.message) };
        return;
      }
      default:
        // ping, and event kinds newer than this reader.
        return;
    }
  }

  #usage(raw: unknown): void {
    const usage = record(raw);
    for (const field of USAGE_FIELDS) {
      const value = usage[field];
      if (isCount(value)) this.#message.usage[field] = value;
    }
  }

  #begin(index: number, raw: unknown): void {
    const start = record(raw);
    let block: AssembledBlock;
    if (start.type === "text") block = { type: "text", text: text(start.text) };
    else if (start.type === "tool_use") block = { type: "tool_use", id: text(start.id), name: text(start.name), input: record(start.input) };
    else if (start.type === "thinking") {
      block = { type: "thinking", thinking: text(start.thinking), ...(text(start.signature) ? { signature: text(start.signature) } : {}) };
    } else if (start.type === "redacted_thinking") block = { type: "redacted_thinking", data: text(start.data) };
    else block = { type: "other", block: start };
    this.#blocks[index] = { block, json: null };
  }

  #delta(index: number, delta: Json): void {
    const building = this.#blocks[index];
    if (!building) return;
    const { block } = building;
    if (delta.type === "text_delta" && block.type === "text") block.text += text(delta.text);
    else if (delta.type === "input_json_delta" && block.type === "tool_use") building.json = (building.json ?? "") + text(delta.partial_json);
    else if (delta.type === "thinking_delta" && block.type === "thinking") block.thinking += text(delta.thinking);
    else if (delta.type === "signature_delta" && block.type === "thinking") block.signature = (block.signature ?? "") + text(delta.signature);
  }
}

const isIndex = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 100_000;

/** A tool call's input from the JSON streamed for it, once its block ends. */
function settle(building: Building): void {
  const { block, json } = building;
  building.json = null;
  if (block.type !== "tool_use" || json === null || json.trim() === "") return;
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      block.input = parsed as Record<string, unknown>;
      return;
    }
  } catch {
    // Kept as text below.
  }
  block.input = {};
  block.input_text = json;
}

/** A whole (not streamed) reply in the shape the accumulator gives. */
export function assembledOfMessage(response: MessagesResponse): AssembledMessage {
  return {
    id: response.id,
    model: response.model,
    content: response.content.map((block) => ({ ...block })),
    stop_reason: response.stop_reason,
    stop_sequence: response.stop_sequence,
    usage: { ...response.usage },
    error: null,
    complete: true,
    unreadable: 0,
  };
}
