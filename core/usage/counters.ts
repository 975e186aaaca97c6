/**
 * Usage figures as the API shows them: token counts, calls, and cost as a decimal
 * string with the columns' 6 decimals (numeric(14,6) arrives as text).
 */
export interface UsageCounters {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  cost_usd: string;
  calls: number;
}

export const ZERO_COUNTERS: UsageCounters = {
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: "0.000000",
  calls: 0,
};

/** A decimal USD string (at most 6 decimals, as the columns hold) in whole micro-dollars, so sums stay exact. */
function micros(usd: string): bigint {
  const [whole = "0", fraction = ""] = usd.trim().split(".");
  const negative = whole.startsWith("-");
  const value = BigInt(whole.replace("-", "") || "0") * 1_000_000n + BigInt(`${fraction}000000`.slice(0, 6));
  return negative ? -value : value;
}

const fromMicros = (n: bigint) => {
  const sign = n < 0n ? "-" : "";
  const abs = n < 0n ? -n : n;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, "0")}`;
};

/**
 * The sum of usage figures; cost is added in micro-dollars, not floats.
 *
 * @example addCounters([{ ...ZERO_COUNTERS, cost_usd: "0.100000", calls: 1 }, { ...ZERO_COUNTERS, cost_usd: "0.200000", calls: 2 }])
 * // { ..., cost_usd: "0.300000", calls: 3 }
 */
export function addCounters(all: UsageCounters[]): UsageCounters {
  let cost = 0n;
  const sum = { ...ZERO_COUNTERS };
  for (const c of all) {
    sum.input_tokens += c.input_tokens;
    sum.output_tokens += c.output_tokens;
    sum.cached_input_tokens += c.cached_input_tokens;
    sum.reasoning_tokens += c.reasoning_tokens;
    sum.calls += c.calls;
    cost += micros(c.cost_usd);
  }
  return { ...sum, cost_usd: fromMicros(cost) };
}
