/**
 * A Messages request as a Chat Completions request, for the OpenAI-compatible providers the
 * model gateway forwards a harness's calls to.
 *
 * What has no Chat Completions form, decided here:
 * - thinking and redacted thinking blocks are dropped (their signatures mean nothing to
 *   another provider), and so are `thinking`, `top_k` (OpenAI refuses it) and `metadata`
 *   (the gateway names its own calls);
 * - a tool result becomes a `tool` message of text; its images cannot ride in a tool message,
 *   so each is marked `[image]` there and carried whole in the user message that follows the
 *   tool messages (with a line naming the call), where a vision model sees it;
 * - a document is flattened: plain text and content documents become text parts under their
 *   title; a PDF (base64 or url) cannot be carried and becomes a one-line note in its place,
 *   so the model knows it was given one;
 * - tool messages follow the assistant message that called them in the order of its calls; a
 *   call the next message left unanswered gets a result saying so, and a result no call asked
 *   for becomes text of the user message, since Chat Completions refuses both.
 *
 * @example chatRequestOf({ model: "claude-x", max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "Hi" }] }, "gpt-4.1")
 * // { model: "gpt-4.1", max_tokens: 100, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }] }
 */
import type { DocumentBlock, ImageBlock, MessageParam, MessagesRequest, TextBlock, ToolChoice, ToolResultBlock } from "./messages";

export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };
export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}
export type ChatToolChoice = "auto" | "required" | "none" | { type: "function"; function: { name: string } };

export interface ChatCompletionsRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  stream?: boolean;
  stream_options?: { include_usage: boolean };
}

/** What a tool message says of an image it cannot hold. */
export const IMAGE_MARK = "[image]";
/** The result given for a call the next message did not answer. */
export const NO_RESULT = "[no result was given for this tool call]";
/** The prefix of a tool result the harness marked as an error. */
export const ERROR_MARK = "[error] ";

/** The Chat Completions request for `request`, sent to `model` (the gateway's choice, not the request's). */
export function chatRequestOf(request: MessagesRequest, model: string): ChatCompletionsRequest {
  const messages: ChatMessage[] = [];
  const system = typeof request.system === "string" ? request.system : (request.system ?? []).map((b) => b.text).join("\n\n");
  if (system) messages.push({ role: "system", content: system });
  // The calls of the last assistant message, until the next message answers them.
  let pending: string[] = [];
  // A system turn between a call and its result waits until the results are given: Chat
  // Completions wants the tool messages right after the assistant message that called.
  let held: ChatMessage[] = [];
  for (const message of request.messages) {
    if (message.role === "system") {
      const turn: ChatMessage = { role: "system", content: textOf(message.content) };
      if (pending.length) held.push(turn);
      else messages.push(turn);
    } else if (message.role === "assistant") {
      answerMissing(pending, messages);
      messages.push(...held);
      held = [];
      pending = addAssistant(message, messages);
    } else {
      addUser(message, pending, messages);
      messages.push(...held);
      held = [];
      pending = [];
    }
  }
  messages.push(...held);
  const tools = request.tools?.length ? request.tools : null;
  return {
    model,
    messages,
    max_tokens: request.max_tokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { top_p: request.top_p } : {}),
    ...(request.stop_sequences?.length ? { stop: request.stop_sequences } : {}),
    ...(tools
      ? {
          tools: tools.map((t) => ({
            type: "function" as const,
            function: { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.input_schema },
          })),
          ...(request.tool_choice ? { tool_choice: chatToolChoice(request.tool_choice) } : {}),
          ...(request.tool_choice?.disable_parallel_tool_use ? { parallel_tool_calls: false } : {}),
        }
      : {}),
    ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** A system turn's text: its string, or its text blocks joined. */
function textOf(content: MessageParam["content"]): string {
  return typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("\n\n");
}

function chatToolChoice(choice: ToolChoice): ChatToolChoice {
  if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  return choice.type === "any" ? "required" : choice.type;
}

/** One assistant message: its text, its calls; the ids of the calls, which the next message must answer. */
function addAssistant(message: MessageParam, messages: ChatMessage[]): string[] {
  if (typeof message.content === "string") {
    messages.push({ role: "assistant", content: message.content });
    return [];
  }
  const texts: string[] = [];
  const calls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text) texts.push(block.text);
    else if (block.type === "tool_use") calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input) } });
  }
  const content = texts.length ? texts.join("\n\n") : calls.length ? null : "";
  messages.push(calls.length ? { role: "assistant", content, tool_calls: calls } : { role: "assistant", content });
  return calls.map((c) => c.id);
}

/** One user message: the tool messages answering `pending` first, then a user message with the rest. */
function addUser(message: MessageParam, pending: string[], messages: ChatMessage[]): void {
  if (typeof message.content === "string") {
    answerMissing(pending, messages);
    messages.push({ role: "user", content: message.content });
    return;
  }
  const answers = new Map<string, ToolResultBlock>();
  const unasked: ToolResultBlock[] = [];
  const rest: (TextBlock | ImageBlock | DocumentBlock)[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      if (pending.includes(block.tool_use_id) && !answers.has(block.tool_use_id)) answers.set(block.tool_use_id, block);
      else unasked.push(block);
    } else if (block.type === "text" || block.type === "image" || block.type === "document") {
      rest.push(block);
    }
  }
  const carried: ChatContentPart[] = [];
  for (const id of pending) {
    const result = answers.get(id);
    if (!result) {
      messages.push({ role: "tool", tool_call_id: id, content: NO_RESULT });
      continue;
    }
    const parts = resultParts(result);
    messages.push({ role: "tool", tool_call_id: id, content: resultText(result, parts) });
    const images = parts.filter((p) => p.type === "image_url");
    if (images.length) carried.push({ type: "text", text: `Image${images.length > 1 ? "s" : ""} from the result of tool call ${id}:` }, ...images);
  }
  for (const result of unasked) {
    const label = `${result.is_error ? ERROR_MARK : ""}Result of tool call ${result.tool_use_id}:`;
    carried.push({ type: "text", text: label }, ...resultParts(result));
  }
  const parts = [...carried, ...contentParts(rest)];
  if (parts.length) messages.push({ role: "user", content: parts });
}

function answerMissing(pending: string[], messages: ChatMessage[]): void {
  for (const id of pending) messages.push({ role: "tool", tool_call_id: id, content: NO_RESULT });
}

function resultParts(result: ToolResultBlock): ChatContentPart[] {
  const content = result.content ?? "";
  if (typeof content !== "string") return contentParts(content);
  return content ? [{ type: "text", text: content }] : [];
}

/** A tool message's text: the result's text parts by lines, each image as IMAGE_MARK. */
function resultText(result: ToolResultBlock, parts: ChatContentPart[]): string {
  return (result.is_error ? ERROR_MARK : "") + partsText(parts);
}

function partsText(parts: ChatContentPart[]): string {
  return parts.map((p) => (p.type === "text" ? p.text : IMAGE_MARK)).join("\n");
}

/**
 * A tool result as text, as the transcript keeps it (the error is the row's own mark, not a prefix).
 *
 * @example toolResultText({ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "ok" }] }) // "ok"
 */
export function toolResultText(result: ToolResultBlock): string {
  return partsText(resultParts(result));
}

/** Text, image and document blocks as content parts. */
function contentParts(blocks: (TextBlock | ImageBlock | DocumentBlock)[]): ChatContentPart[] {
  const parts: ChatContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "text") {
      if (block.text) parts.push({ type: "text", text: block.text });
    } else if (block.type === "image") {
      parts.push(imagePart(block));
    } else {
      parts.push(...documentParts(block));
    }
  }
  return parts;
}

function imagePart(block: ImageBlock): ChatContentPart {
  const { source } = block;
  const url = source.type === "url" ? source.url : `data:${source.media_type};base64,${source.data}`;
  return { type: "image_url", image_url: { url } };
}

/** A document as text under a heading; a PDF as a note that it was left out. */
function documentParts(block: DocumentBlock): ChatContentPart[] {
  const heading = `Document${block.title ? `: ${block.title}` : ""}${block.context ? ` (${block.context})` : ""}`;
  const { source } = block;
  if (source.type === "text") return [{ type: "text", text: `${heading}\n\n${source.data}` }];
  if (source.type === "content") {
    const inner = typeof source.content === "string" ? [{ type: "text" as const, text: source.content }] : source.content;
    return [{ type: "text", text: heading }, ...contentParts(inner)];
  }
  const kind = source.type === "base64" ? source.media_type : "a linked file";
  return [{ type: "text", text: `[${heading}, ${kind}, left out: this model is reached through an API that carries no documents]` }];
}
