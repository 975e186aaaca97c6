/**
 * Spend reservations: a model call made outside a generation's lock (a what-if variant)
 * holds its worst-case cost against the organisation's monthly spend limit before it is
 * made, and gives it back when its real cost is recorded. Concurrent calls then see each
 * other's holds, so twenty at once cannot all pass a limit that fits a few (decision 0022).
 * Pure: the figures in, the decision out; core/db/variants.ts takes the row lock.
 */
import { IMAGE_TOKENS, PROMPT_OVERHEAD } from "../projection/token-count";
import { modelPrice, type Pricing } from "./pricing";

/**
 * How long a hold counts. Every call that holds one is stopped long before (VARIANT_TIMEOUT_MS,
 * 120 s) and settles at once; a hold still pending past this belongs to a process that died
 * mid-call, so it no longer counts and the next reservation marks its row failed.
 */
export const RESERVATION_TTL_MS = 10 * 60_000;

/**
 * The reply tokens held for a call that sets no max_tokens: the provider's own default bounds
 * such a reply, and no figure of ours does. 32,768 is gpt-4.1's longest reply; a model that
 * writes more (a reasoning model may) is recorded at its real cost, which may pass the hold.
 */
export const UNSET_MAX_TOKENS_HOLD = 32_768;

/** UTF-8 bytes per token we assume for a prompt not yet sent: fewer than the common tokenizers average, so the count errs high. */
const BYTES_PER_TOKEN = 3;

/**
 * The input tokens of a prompt at most: its messages and tool schemas as JSON (keys and all),
 * one token per 3 bytes, and IMAGE_TOKENS per image it hydrates. Above what o200k_base counts
 * for English, code or CJK text; a bound, not a count.
 *
 * @example promptTokensBound([{ role: "user", content: "hi" }], [], 0) // 14
 */
export function promptTokensBound(messages: readonly unknown[], tools: readonly unknown[], images: number): number {
  const bytes = new TextEncoder().encode(JSON.stringify(messages)).byteLength + (tools.length ? new TextEncoder().encode(JSON.stringify(tools)).byteLength : 0);
  return Math.ceil(bytes / BYTES_PER_TOKEN) + PROMPT_OVERHEAD + images * IMAGE_TOKENS;
}

/**
 * The most one call may cost in USD, rounded up to a micro-dollar: every input token at the
 * full (uncached) price and `maxTokens` reply tokens, priced as replyCost would price them. A
 * model replyCost prices at 0 (an agent's own key, a model the table does not know) holds 0.
 *
 * @example worstCaseCost("gpt-4.1-mini", { inputTokens: 1000, maxTokens: 100 }, pricing) // 0.00056
 */
export function worstCaseCost(model: string, call: { inputTokens: number; maxTokens: number | null }, pricing: Pricing): number {
  const { price } = modelPrice(model, pricing);
  if (!price) return 0;
  // Tokens at USD per million tokens are micro-dollars; the epsilon keeps float noise from rounding up a whole one.
  const micros = call.inputTokens * price.input + (call.maxTokens ?? UNSET_MAX_TOKENS_HOLD) * price.output;
  return Math.ceil(micros - 1e-6) / 1e6;
}

/** The organisation's figures under its row lock: the effective limit, the month's spend, and the holds of calls in flight. */
export interface SpendRoom {
  limitUsd: number | null;
  spentUsd: number;
  reservedUsd: number;
}

export type Reservation = { fits: true } | { fits: false; message: string };

/** Whole micro-dollars, the columns' precision, so sums and comparisons stay exact. */
export const toMicros = (usd: number) => Math.round(usd * 1e6);

/**
 * Whether a hold of `askedUsd` fits: the month's spend, the holds already made and this one
 * together at most the limit. Without a limit everything fits. Refused with the message a
 * generation gets when the limit is already reached, else one naming the figures.
 *
 * @example reservation({ limitUsd: 1, spentUsd: 0.5, reservedUsd: 0.3 }, 0.2) // { fits: true }
 * @example reservation({ limitUsd: 1, spentUsd: 0.5, reservedUsd: 0.3 }, 0.3).fits // false
 */
export function reservation(room: SpendRoom, askedUsd: number): Reservation {
  if (room.limitUsd === null) return { fits: true };
  const [limit, spent, reserved, asked] = [room.limitUsd, room.spentUsd, room.reservedUsd, askedUsd].map(toMicros) as [number, number, number, number];
  if (spent >= limit) return { fits: false, message: limitReachedMessage(room.limitUsd) };
  // A budget the holds already fill refuses even a call priced at 0, as a generation's check does.
  if (spent + reserved < limit && spent + reserved + asked <= limit) return { fits: true };
  return {
    fits: false,
    message:
      `The request could cost up to ${usd(asked)} USD, more than the ${usd(Math.max(0, limit - spent - reserved))} USD left under the organisation's ` +
      `monthly spend limit of ${room.limitUsd} USD (${usd(spent)} USD spent, ${usd(reserved)} USD held by calls in flight); no model call was made`,
  };
}

/**
 * Whether the month's spend with the holds of calls in flight has reached the limit: a
 * generation's check before each call.
 *
 * @example spendReached({ limitUsd: 1, monthCostUsd: 0.4, reservedUsd: 0.6 }) // true
 */
export function spendReached(spend: { limitUsd: number | null; monthCostUsd: number; reservedUsd: number }): boolean {
  return spend.limitUsd !== null && toMicros(spend.monthCostUsd) + toMicros(spend.reservedUsd) >= toMicros(spend.limitUsd);
}

/** The refusal of a call once the month's spend reached the limit (USAGE-005, OP-USAGE-1). */
export function limitReachedMessage(limitUsd: number): string {
  return `The organisation reached its monthly spend limit of ${limitUsd} USD; no model call was made`;
}

const usd = (micros: number) => (micros / 1e6).toFixed(6);
