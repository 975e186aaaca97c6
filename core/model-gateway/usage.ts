/**
 * Token counts between Anthropic's usage and the platform's. Anthropic counts the prompt in
 * three disjoint parts (`input_tokens` uncached, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`); the platform, as Chat Completions does, counts the whole
 * prompt with the cached part inside it. Figures come from a provider, so they are checked as
 * core/usage/reported-usage.ts checks a Chat provider's: a bad one is dropped (read as 0) and
 * listed for the caller's log line, never credited.
 *
 * @example platformUsage({ input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 })
 * // { usage: { prompt_tokens: 100, completion_tokens: 5, cached_tokens: 90, reasoning_tokens: 0 }, rejected: {} }
 */
import { MAX_TOKENS_PER_CALL, type ReportedUsage, readReportedUsage } from "../usage/reported-usage";
import type { MessagesUsage } from "./messages";

const ANTHROPIC_FIELDS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_TOKENS_PER_CALL;

/** A bad figure as a log line can hold it: numbers as they are (NaN and infinities as text), a string's start, else its type. */
function describe(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") return `string(${value.slice(0, 40)})`;
  return typeof value;
}

/** The platform's usage of one call from Anthropic's usage (a reply's, or a stream's assembled one). */
export function platformUsage(raw: unknown): ReportedUsage {
  const source = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const rejected: Record<string, unknown> = {};
  const kept = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const field of ANTHROPIC_FIELDS) {
    const value = source[field];
    if (value === undefined || value === null) continue;
    if (isCount(value)) kept[field] = value;
    else rejected[field] = describe(value);
  }
  // The sum is checked again: three figures each within bounds can still pass them together.
  const summed = readReportedUsage({
    prompt_tokens: kept.input_tokens + kept.cache_read_input_tokens + kept.cache_creation_input_tokens,
    completion_tokens: kept.output_tokens,
    cached_tokens: kept.cache_read_input_tokens,
  });
  return { usage: summed.usage, rejected: { ...rejected, ...summed.rejected } };
}

/**
 * Anthropic's usage from a Chat Completions `usage` object: the cached part of the prompt
 * taken out of `input_tokens`. A figure that is not a count reads 0; a cached count larger
 * than the prompt is inconsistent and is not split off (the whole prompt stays uncached input).
 *
 * @example messagesUsageOfChat({ prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 90 } })
 * // { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 90 }
 */
export function messagesUsageOfChat(raw: unknown): Required<{ [K in keyof MessagesUsage]: number }> {
  const source = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const details = source.prompt_tokens_details;
  const cachedRaw = details !== null && typeof details === "object" ? (details as Record<string, unknown>).cached_tokens : undefined;
  const prompt = isCount(source.prompt_tokens) ? source.prompt_tokens : 0;
  const cached = isCount(cachedRaw) && cachedRaw <= prompt ? cachedRaw : 0;
  return {
    input_tokens: prompt - cached,
    output_tokens: isCount(source.completion_tokens) ? source.completion_tokens : 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}
