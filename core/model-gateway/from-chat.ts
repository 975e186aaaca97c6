/**
 * A Chat Completions answer as a Messages reply: `messageOfCompletion` for a whole answer,
 * `ChatStreamTranslator` for a stream, chunk by chunk into Anthropic's SSE events. Both give
 * the same reply for the same answer (the stream assembled by MessageAccumulator equals the
 * whole answer's), so what the harness sees does not depend on how it asked.
 *
 * Decided here:
 * - ids: `msg_` + the completion id's safe characters, else the fresh id the caller passes;
 *   a tool call keeps the provider's id (the harness hands it back in its tool_result, and
 *   to-chat.ts hands it on unchanged), and one without gets `toolu_<the end of the message id>_<n>`;
 * - arguments that are not a JSON object become the input `{}`, and the reply gains a text
 *   block after the calls quoting what the model wrote, so the harness's user, the model's
 *   next turn and the transcript all see why the call failed (a stream has already sent the
 *   raw fragments by then, as Anthropic's own streams do with a cut-off call);
 * - reasoning (`reasoning`, `reasoning_content`) is dropped; a `refusal` is shown as text;
 * - a reply with tool calls stops with `tool_use` even when the provider said `stop`, since
 *   the harness runs the calls only then.
 *
 * @example const translator = new ChatStreamTranslator("claude-x", "a1b2");
 * translator.push({ id: "chatcmpl-1", choices: [{ index: 0, delta: { content: "Hi" } }] });
 * // ["event: message_start\ndata: {…}\n\n", "event: ping\n…", "event: content_block_start\n…", "event: content_block_delta\n…"]
 * translator.end(); // [content_block_stop, message_delta (end_turn, usage), message_stop]
 */
import type { ContentDelta, MessagesResponse, ResponseBlock, StopReason, StreamEvent } from "./messages";
import { CHAT_STREAM_DONE } from "./sse";
import { messagesUsageOfChat } from "./usage";

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const safe = (value: unknown): string =>
  text(value)
    .replace(/[^A-Za-z0-9_-]/g, "")
    .slice(0, 120);

/** How much of unparsable arguments the note quotes. */
export const ARGUMENTS_QUOTED = 2_000;

/** The reply's id: from the provider's completion id, else the caller's fresh one. */
export function messageIdOf(completionId: unknown, freshId?: string): string {
  const own = safe(completionId) || safe(freshId);
  return `msg_${own || "gateway"}`;
}

/** The provider's id, else one from the reply's: its last 24 characters, so it stays within OpenAI's 40 for a call id. */
function toolUseIdOf(providerId: unknown, messageId: string, ordinal: number): string {
  return text(providerId) || `toolu_${messageId.slice(4).slice(-24)}_${ordinal}`;
}

/** Anthropic's stop reason for a Chat Completions finish reason. */
export function stopReasonOf(finishReason: unknown, hasToolCalls: boolean): StopReason {
  if (finishReason === "length") return "max_tokens";
  if (finishReason === "content_filter") return "refusal";
  if (finishReason === "tool_calls" || finishReason === "function_call" || hasToolCalls) return "tool_use";
  return "end_turn";
}

/** A tool call's input from its arguments: `{}` for none, and for text that is not a JSON object, with the note saying so. */
export function inputOfArguments(args: string, name: string, id: string): { input: Record<string, unknown>; note: string | null } {
  if (args.trim() === "") return { input: {}, note: null };
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return { input: parsed as Record<string, unknown>, note: null };
  } catch {
    // Quoted in the note below.
  }
  const quoted = args.length > ARGUMENTS_QUOTED ? `${args.slice(0, ARGUMENTS_QUOTED)}…` : args;
  return { input: {}, note: `[The model's arguments for ${name} (${id}) were not a JSON object, so the call was given {}. They were: ${quoted}]` };
}

function contentOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return "";
  return value.map((part) => text(record(part).text)).join("");
}

/** The Messages reply for a whole (not streamed) Chat Completions answer, reported under `model`. */
export function messageOfCompletion(completion: unknown, model: string, freshId?: string): MessagesResponse {
  const body = record(completion);
  const id = messageIdOf(body.id, freshId);
  const choice = record(Array.isArray(body.choices) ? body.choices[0] : undefined);
  const message = record(choice.message);
  const content: ResponseBlock[] = [];
  const said = contentOf(message.content) || text(message.refusal);
  if (said) content.push({ type: "text", text: said });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const notes: string[] = [];
  calls.forEach((raw, ordinal) => {
    const call = record(raw);
    const fn = record(call.function);
    const toolId = toolUseIdOf(call.id, id, ordinal);
    const name = text(fn.name);
    const { input, note } = inputOfArguments(text(fn.arguments), name, toolId);
    content.push({ type: "tool_use", id: toolId, name, input });
    if (note) notes.push(note);
  });
  for (const note of notes) content.push({ type: "text", text: note });
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReasonOf(choice.finish_reason, calls.length > 0),
    stop_sequence: null,
    usage: messagesUsageOfChat(body.usage),
  };
}

/** One event as Anthropic's SSE text. */
export function sseOf(event: StreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

interface OpenCall {
  /** The provider's `index` of the call. */
  key: number;
  /** Its place among the reply's calls, for an id when the provider gave none. */
  ordinal: number;
  id: string;
  name: string;
  args: string;
  /** Whether its content_block_start was sent: name and id are fixed from then on. */
  started: boolean;
}

/**
 * One streamed Chat Completions answer into Anthropic's stream events. Blocks follow each
 * other (text, then each tool call its own block), each closed when the next starts; the
 * stop reason and usage wait for `end()`, since the usage comes in the last chunk.
 */
export class ChatStreamTranslator {
  readonly #model: string;
  readonly #freshId: string | undefined;
  #id = "";
  #started = false;
  #over = false;
  /** The open block's index, and what it is. */
  #index = -1;
  #open: "text" | OpenCall | null = null;
  #seenKeys = new Set<number>();
  #calls = 0;
  #notes: string[] = [];
  #finishReason: unknown = null;
  #usage: unknown = null;

  /** `model` is the name the harness is answered under; `freshId` names the reply when the provider's chunks carry no id. */
  constructor(model: string, freshId?: string) {
    this.#model = model;
    this.#freshId = freshId;
  }

  /** The events one parsed chunk (the JSON of one `data:` line) produces. */
  push(chunk: unknown): string[] {
    if (this.#over) return [];
    const body = record(chunk);
    // Some providers (OpenRouter) report a failure mid-stream as a chunk with `error`.
    if (body.error !== undefined && body.error !== null) {
      const said = text(record(body.error).message) || text(body.error) || "unknown error";
      return this.fail(`The provider failed mid-stream: ${said.slice(0, 500)}`);
    }
    const out: string[] = [];
    this.#start(body.id, out);
    if (typeof body.usage === "object" && body.usage !== null) this.#usage = body.usage;
    const choices = Array.isArray(body.choices) ? body.choices : [];
    const choice = record(choices.find((c) => record(c).index === undefined || record(c).index === 0));
    const delta = record(choice.delta);
    const said = text(delta.content) || text(delta.refusal);
    if (said) {
      if (this.#open !== "text") {
        this.#close(out);
        this.#begin({ type: "text", text: "" }, out);
        this.#open = "text";
      }
      this.#delta({ type: "text_delta", text: said }, out);
    }
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      if (!this.#toolFragment(record(part), out)) return [...out, ...this.fail("The provider interleaved the fragments of two tool calls")];
    }
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
    return out;
  }

  /** One `data:` payload as the provider sent it: `[DONE]` ends the reply, text that is not JSON fails it. */
  pushData(data: string): string[] {
    if (data.trim() === CHAT_STREAM_DONE) return this.end();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return this.fail("The provider's stream held a line that is not JSON");
    }
    return this.push(chunk);
  }

  /** The stream ended: the open block closed, then the stop reason and usage, then `message_stop`. */
  end(): string[] {
    if (this.#over) return [];
    const out: string[] = [];
    this.#start(null, out);
    this.#close(out);
    for (const note of this.#notes) {
      this.#begin({ type: "text", text: "" }, out);
      this.#delta({ type: "text_delta", text: note }, out);
      out.push(sseOf({ type: "content_block_stop", index: this.#index }));
    }
    out.push(
      sseOf({
        type: "message_delta",
        delta: { stop_reason: stopReasonOf(this.#finishReason, this.#calls > 0), stop_sequence: null },
        usage: messagesUsageOfChat(this.#usage),
      }),
      sseOf({ type: "message_stop" }),
    );
    this.#over = true;
    return out;
  }

  /** The reply failed: Anthropic's `error` event, and nothing more after it. */
  fail(message: string): string[] {
    if (this.#over) return [];
    this.#over = true;
    return [sseOf({ type: "error", error: { type: "api_error", message } })];
  }

  #start(completionId: unknown, out: string[]): void {
    if (this.#started) return;
    this.#started = true;
    this.#id = messageIdOf(completionId, this.#freshId);
    const message: MessagesResponse = {
      id: this.#id,
      type: "message",
      role: "assistant",
      model: this.#model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    out.push(sseOf({ type: "message_start", message }), sseOf({ type: "ping" }));
  }

  /** One tool call fragment; false when it continues a call whose block is already closed. */
  #toolFragment(part: Json, out: string[]): boolean {
    const fn = record(part.function);
    const current = typeof this.#open === "object" ? this.#open : null;
    let key: number;
    if (typeof part.index === "number" && Number.isInteger(part.index) && part.index >= 0) key = part.index;
    // Without an index, a fragment continues the open call unless it names another id.
    else if (current && (!part.id || part.id === current.id)) key = current.key;
    else key = Math.max(-1, ...this.#seenKeys) + 1;
    let call = current?.key === key ? current : null;
    if (!call) {
      if (this.#seenKeys.has(key)) return false;
      this.#close(out);
      this.#seenKeys.add(key);
      call = { key, ordinal: this.#calls++, id: "", name: "", args: "", started: false };
      this.#open = call;
    }
    if (!call.started) {
      if (text(part.id)) call.id = text(part.id);
      call.name += text(fn.name);
    }
    const fragment = text(fn.arguments);
    if (fragment) {
      this.#startCall(call, out);
      call.args += fragment;
      this.#delta({ type: "input_json_delta", partial_json: fragment }, out);
    }
    return true;
  }

  #startCall(call: OpenCall, out: string[]): void {
    if (call.started) return;
    call.started = true;
    call.id = toolUseIdOf(call.id, this.#id, call.ordinal);
    this.#begin({ type: "tool_use", id: call.id, name: call.name, input: {} }, out);
  }

  #begin(block: ResponseBlock, out: string[]): void {
    this.#index++;
    out.push(sseOf({ type: "content_block_start", index: this.#index, content_block: block }));
  }

  #delta(delta: ContentDelta, out: string[]): void {
    out.push(sseOf({ type: "content_block_delta", index: this.#index, delta }));
  }

  #close(out: string[]): void {
    const open = this.#open;
    if (open === null) return;
    if (open !== "text") {
      this.#startCall(open, out);
      const { note } = inputOfArguments(open.args, open.name, open.id);
      if (note) this.#notes.push(note);
    }
    out.push(sseOf({ type: "content_block_stop", index: this.#index }));
    this.#open = null;
  }
}
