import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import { describeError, logEvent } from "../output/log";
import { makeCounter } from "./bpe";
import type { ChatPayload, RowMetadata, TextCounter } from "./types";

/**
 * Token counting for the input cap (GEN-019). o200k_base is used for every model
 * (OP-GEN-6): the cap is a guard, not a bill, so one stable encoding beats per-provider guesses.
 *
 * Rows are counted once at insert (countRowTokens) and the figure is stored: encoding a
 * 100k-token history costs 140-220 ms in workerd, far too slow to repeat before every call.
 *
 * The o200k_base rank table (2.2 MiB of source) is not bundled: every Worker and object
 * start would pay to parse it. The host hands a RankLoader to prepareTokenCounter before
 * it counts (the Worker reads a static asset, Node the js-tiktoken package); until the
 * table is in, and if it cannot be had, counts are estimates (estimateTokens).
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

/** Fetches the o200k_base rank table (js-tiktoken's `ranks/o200k_base` default export). */
export type RankLoader = () => Promise<TiktokenBPE>;

/** How long a count waits for the rank table before it settles for an estimate. */
export const RANK_WAIT_MS = 5_000;

/**
 * A token estimate for when the rank table is unavailable: one token per 3 UTF-8 bytes.
 * o200k_base averages about 4 bytes per token on English and code and 3 per CJK character,
 * so this errs high, which is the safe side for an input cap.
 * @example estimateTokens("hello world") // 4
 */
export function estimateTokens(text: string): number {
  return Math.ceil(new TextEncoder().encode(text).byteLength / 3);
}

// One encoder per isolate: building it costs ~0.5 s, so it is built once and kept.
let exact: TextCounter | undefined;
let loading: Promise<TextCounter> | undefined;

/**
 * Makes countText exact: loads the rank table and builds the encoder, once per isolate.
 * Resolves true when counts are exact. When loading fails, or takes longer than `waitMs`,
 * it logs `tokens.ranks` and resolves false: counting goes on with estimates, so a
 * generation never waits on the table for longer than that. The next call tries again;
 * a slow load keeps going meanwhile and makes later counts exact if it lands.
 * @example await prepareTokenCounter(loadRanks); countText("hello world") // 2
 */
export async function prepareTokenCounter(load: RankLoader, waitMs = RANK_WAIT_MS): Promise<boolean> {
  if (exact) return true;
  const attempt = (loading ??= load().then((ranks) => (exact = makeCounter(new Tiktoken(ranks), ranks.pat_str))));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the rank table did not load within ${waitMs} ms`)), waitMs);
  });
  try {
    await Promise.race([attempt, timeout]);
    return true;
  } catch (error) {
    if (loading === attempt) loading = undefined;
    logEvent("warn", { operation: "tokens.ranks", fallback: "estimate", ...describeError(error) });
    return false;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/**
 * Tokens of plain text under o200k_base, as `encode(text, [], []).length` (see bpe.ts for
 * why the merge is our own), once prepareTokenCounter has succeeded; estimateTokens before.
 * Special-token strings such as `<|endoftext|>` are counted as ordinary text: tool output
 * may contain them and must not throw.
 * @example countText("hello world") // 2
 */
export function countText(text: string): number {
  if (text.length === 0) return 0;
  if (!exact) return estimateTokens(text);
  if (text.length < REMEMBERED_MIN_CHARS) return exact(text);
  const known = remembered.get(text);
  if (known !== undefined) return known;
  const tokens = exact(text);
  remember(text, tokens);
  return tokens;
}

/**
 * Counts of long texts, kept per isolate: the same tool schemas and much the same system
 * prompt open every run of an agent (and of its guild), and counting them was a tenth of
 * a schedule fire's CPU. Bounded by characters held, the oldest going first.
 */
const remembered = new Map<string, number>();
const REMEMBERED_MIN_CHARS = 512;
const REMEMBERED_MAX_CHARS = 2_000_000;
let rememberedChars = 0;

function remember(text: string, tokens: number): void {
  if (text.length > REMEMBERED_MAX_CHARS / 8) return;
  remembered.set(text, tokens);
  rememberedChars += text.length;
  for (const [oldest] of remembered) {
    if (rememberedChars <= REMEMBERED_MAX_CHARS) break;
    remembered.delete(oldest);
    rememberedChars -= oldest.length;
  }
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
