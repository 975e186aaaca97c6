import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { makeCounter } from "./bpe";
import type { ChatPayload, RowMetadata, TextCounter } from "./types";

/**
 * Token counting for the input cap (GEN-019). o200k_base is used for every model
 * (OP-GEN-6): the cap is a guard, not a bill, so one stable encoding beats per-provider guesses.
 *
 * Rows are counted once at insert (countRowTokens) and the figure is stored: encoding a
 * 100k-token history costs 140-220 ms in workerd, far too slow to repeat before every call.
 */

/**
 * Per-message framing: `<|start|>`, role, `<|message|>`, `<|end|>`. That is OpenAI's
 * 3 tokens per message plus the role name, which is one token for every role we send.
 */
export const MESSAGE_OVERHEAD = 4;

/** Reply priming the provider appends after the last message (`<|start|>assistant<|message|>`). */
export const PROMPT_OVERHEAD = 3;

/** Flat cost of one image attachment (ATT-009/GEN-022); its URL or data is never encoded. */
export const IMAGE_TOKENS = 1600;

// One encoder per isolate: building it costs ~0.5 s, so it is built on first use and kept.
let counter: TextCounter | undefined;

function getCounter(): TextCounter {
  counter ??= makeCounter(new Tiktoken(o200kBase), o200kBase.pat_str);
  return counter;
}

/**
 * Tokens of plain text under o200k_base, as `encode(text, [], []).length` (see bpe.ts for
 * why the merge is our own). Special-token strings such as `<|endoftext|>` are counted
 * as ordinary text: tool output may contain them and must not throw.
 * @example countText("hello world") // 2
 */
export function countText(text: string): number {
  if (text.length === 0) return 0;
  return getCounter()(text);
}

/** Number of image attachments in a row's metadata (kind "image"). */
export function imageCount(metadata: RowMetadata): number {
  const attachments = metadata.attachments;
  if (!Array.isArray(attachments)) return 0;
  let n = 0;
  for (const a of attachments) if (a?.kind === "image") n++;
  return n;
}

/**
 * Tokens of one stored message as the provider sees it: its text (for an assistant, the
 * content plus each tool call's name and arguments), MESSAGE_OVERHEAD, and IMAGE_TOKENS
 * per image attachment. Call once at insert and store the result as row.tokenCount.
 * @example countRowTokens({ role: "user", content: "hi" }, {}) // 1 + MESSAGE_OVERHEAD
 */
export function countRowTokens(payload: ChatPayload, metadata: RowMetadata, count: TextCounter = countText): number {
  let tokens = MESSAGE_OVERHEAD;
  if (payload.content) tokens += count(payload.content);
  if (payload.role === "assistant" && payload.tool_calls) {
    for (const call of payload.tool_calls) {
      tokens += count(call.function.name) + count(call.function.arguments);
    }
  }
  // Images are priced flat; their URLs are minted later (hydration) and never encoded.
  return tokens + IMAGE_TOKENS * imageCount(metadata);
}

/**
 * Tokens of the offered tool schemas, JSON-serialised. The schemas are fixed for the run
 * (EXACT-005), so the caller counts them once per run and passes the figure to planning.
 * @example countToolSchemas([{ type: "function", function: { name: "note_read", parameters: {} } }])
 */
export function countToolSchemas(tools: readonly unknown[]): number {
  if (tools.length === 0) return 0;
  return countText(JSON.stringify(tools));
}
