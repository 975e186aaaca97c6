/**
 * The usage a provider reports is input from outside the platform: a tenant's own
 * provider (or a broken one) can answer `cost: -5000` or `prompt_tokens: "lots"`. Only
 * non-negative finite numbers (whole ones for token counts) within sane bounds are kept;
 * anything else is dropped here, before it can price a row or move a counter, and listed
 * so the caller can log it.
 */
import type { Usage } from "./pricing";

/**
 * Upper bounds of one model call. Beyond them a figure is a provider bug, and would
 * overflow the counters' columns (numeric(14,6) for cost) and fail the row's commit.
 */
export const MAX_TOKENS_PER_CALL = 1_000_000_000;
export const MAX_COST_PER_CALL_USD = 1_000_000;

const TOKEN_FIELDS = ["prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens"] as const;

export interface ReportedUsage {
  /** The figures kept; a dropped token count reads 0, a dropped cost is absent. */
  usage: Usage;
  /** Each dropped field with what the provider sent, for one log line. */
  rejected: Record<string, unknown>;
}

/**
 * Keeps the valid figures of a provider's usage report.
 *
 * @example readReportedUsage({ prompt_tokens: 10, completion_tokens: -1, cost: -5000 })
 * // { usage: { prompt_tokens: 10, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 },
 * //   rejected: { completion_tokens: -1, cost: -5000 } }
 */
export function readReportedUsage(raw: unknown): ReportedUsage {
  const source = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const rejected: Record<string, unknown> = {};
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 };
  for (const field of TOKEN_FIELDS) {
    const value = source[field];
    if (value === undefined || value === null) continue;
    if (isCount(value)) usage[field] = value;
    else rejected[field] = describe(value);
  }
  if (source.cost !== undefined && source.cost !== null) {
    if (typeof source.cost === "number" && Number.isFinite(source.cost) && source.cost >= 0 && source.cost <= MAX_COST_PER_CALL_USD) {
      usage.cost = source.cost;
    } else {
      rejected.cost = describe(source.cost);
    }
  }
  return { usage, rejected };
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_TOKENS_PER_CALL;

/** Numbers as they are (NaN and infinities as text, which JSON cannot hold); anything else by type and a short excerpt. */
function describe(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "string") return `string(${value.slice(0, 40)})`;
  return typeof value;
}
