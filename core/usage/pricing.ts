/**
 * Model prices in USD per million tokens. Cost is computed when the assistant row is
 * inserted; a valid cost the provider reports itself takes precedence. On the platform's
 * own key an unknown model is priced at the operator's DEFAULT_MODEL_PRICE (without one
 * its generation is refused before the call, see core/providers/provider.ts), so the
 * spend limit always holds; on an agent's own key it costs 0 (the tenant pays its
 * provider) and says so in metadata.
 */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input tokens, when the provider discounts them. */
  cachedInput?: number;
}

export const PRICE_TABLE_VERSION = 1;

/** Prefix-matched, longest prefix first. MODEL_PRICES in configuration adds to it (pricesFrom). */
export const DEFAULT_PRICES: Record<string, ModelPrice> = {
  "gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cachedInput: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cachedInput: 0.025 },
  "gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
  "o4-mini": { input: 1.1, output: 4.4, cachedInput: 0.275 },
  "kimi-k2": { input: 0.6, output: 2.5, cachedInput: 0.15 },
  "mock-model": { input: 1, output: 2, cachedInput: 0.5 },
};

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  /** Some providers (OpenRouter) report the call's cost themselves. */
  cost?: number;
}

/**
 * Cost of one model call in USD, rounded to the column's 6 decimals.
 *
 * @example costUsd("gpt-4.1-mini", { prompt_tokens: 1000, completion_tokens: 100 }) // 0.00056
 */
export function costUsd(model: string, usage: Usage, prices: Record<string, ModelPrice> = DEFAULT_PRICES): { cost: number; priced: boolean } {
  if (typeof usage.cost === "number" && Number.isFinite(usage.cost) && usage.cost >= 0) return { cost: round6(usage.cost), priced: true };
  const price = priceFor(model, prices);
  if (!price) return { cost: 0, priced: false };
  return { cost: tokensCost(usage, price), priced: true };
}

/** The tokens of one call at one price, in USD rounded to 6 decimals. */
function tokensCost(usage: Usage, price: ModelPrice): number {
  const cached = Math.min(usage.cached_tokens ?? 0, usage.prompt_tokens);
  const fresh = usage.prompt_tokens - cached;
  return round6((fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.completion_tokens * price.output) / 1e6);
}

export function priceFor(model: string, prices: Record<string, ModelPrice> = DEFAULT_PRICES): ModelPrice | undefined {
  const name = model.toLowerCase().replace(/^[^/]+\//, "");
  const key = Object.keys(prices)
    .filter((p) => name.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return key ? prices[key] : undefined;
}

/** 'YYYY-MM' in UTC: the key of org_monthly_usage. */
export const usageMonth = (at: Date) => at.toISOString().slice(0, 7);

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * The price table with MODEL_PRICES (JSON, USD per million tokens) laid over the
 * built-in one; a malformed value is ignored rather than failing every generation.
 *
 * @example pricesFrom('{"my-llama": {"input": 0.2, "output": 0.2}}')["my-llama"] // { input: 0.2, output: 0.2 }
 */
export function pricesFrom(json: string | undefined): Record<string, ModelPrice> {
  if (!json) return DEFAULT_PRICES;
  try {
    const extra = JSON.parse(json) as Record<string, ModelPrice>;
    const valid = Object.entries(extra).filter(([, p]) => isPrice(p));
    return { ...DEFAULT_PRICES, ...Object.fromEntries(valid) };
  } catch {
    return DEFAULT_PRICES;
  }
}

/**
 * One price as JSON `{"input": 1, "output": 2, "cachedInput": 0.5}` (USD per million
 * tokens), or null when absent or malformed (DEFAULT_MODEL_PRICE).
 *
 * @example modelPriceFrom('{"input": 3, "output": 15}') // { input: 3, output: 15 }
 */
export function modelPriceFrom(json: string | undefined): ModelPrice | null {
  if (!json) return null;
  try {
    const p = JSON.parse(json) as ModelPrice;
    if (!isPrice(p)) return null;
    return { input: p.input, output: p.output, ...(p.cachedInput !== undefined ? { cachedInput: p.cachedInput } : {}) };
  } catch {
    return null;
  }
}

/** How one generation's replies are priced. */
export interface Pricing {
  prices: Record<string, ModelPrice>;
  /** DEFAULT_MODEL_PRICE: the price of a model missing from `prices`, on the platform's key. */
  fallback: ModelPrice | null;
  /** Whether the call runs on the platform's key (the platform pays the provider). */
  platformKey: boolean;
}

/** Where a reply's cost came from, kept in the row's metadata. */
export type PriceSource = "provider" | "table" | "default" | "none";

/**
 * The cost of one reply whose usage has been checked (readReportedUsage).
 *
 * @example replyCost("my-llama", { prompt_tokens: 1e6, completion_tokens: 0 }, { prices: {}, fallback: { input: 1, output: 1 }, platformKey: true })
 * // { cost: 1, priced: true, source: "default" }
 */
export function replyCost(model: string, usage: Usage, pricing: Pricing): { cost: number; priced: boolean; source: PriceSource } {
  if (typeof usage.cost === "number" && Number.isFinite(usage.cost) && usage.cost >= 0) {
    return { cost: round6(usage.cost), priced: true, source: "provider" };
  }
  const { price, source } = modelPrice(model, pricing);
  if (!price) return { cost: 0, priced: false, source };
  return { cost: tokensCost(usage, price), priced: true, source };
}

/**
 * The price a call of `model` is charged at: the table's, else the platform's default on the
 * platform's key, else none (an agent's own key pays an unknown model's provider itself).
 */
export function modelPrice(model: string, pricing: Pricing): { price: ModelPrice | null; source: "table" | "default" | "none" } {
  const table = priceFor(model, pricing.prices);
  if (table) return { price: table, source: "table" };
  if (pricing.platformKey && pricing.fallback) return { price: pricing.fallback, source: "default" };
  return { price: null, source: "none" };
}

/** A price with finite, non-negative figures: a negative one would credit the organisation for every call. */
function isPrice(p: ModelPrice | null | undefined): p is ModelPrice {
  const ok = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;
  return !!p && typeof p === "object" && ok(p.input) && ok(p.output) && (p.cachedInput === undefined || ok(p.cachedInput));
}
