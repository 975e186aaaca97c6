import { describe, expect, it } from "vitest";
import { type Pricing, replyCost } from "./pricing";
import { MAX_COST_PER_CALL_USD, readReportedUsage } from "./reported-usage";

const platform: Pricing = { prices: { "gpt-4.1-mini": { input: 0.4, output: 1.6, cachedInput: 0.1 } }, fallback: null, platformKey: true };

describe("provider-reported usage", () => {
  it("USAGE-001: keeps valid counts and a valid provider cost", () => {
    const { usage, rejected } = readReportedUsage({ prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 10, reasoning_tokens: 5, cost: 0.25 });
    expect(usage).toEqual({ prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 10, reasoning_tokens: 5, cost: 0.25 });
    expect(rejected).toEqual({});
    expect(readReportedUsage(null)).toEqual({ usage: { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 }, rejected: {} });
  });

  it("HARDEN-4: a negative, infinite, fractional or non-numeric figure is dropped and listed, never credited", () => {
    const { usage, rejected } = readReportedUsage({
      prompt_tokens: -3,
      completion_tokens: 1.5,
      cached_tokens: "9",
      reasoning_tokens: Infinity,
      cost: -5000,
    });
    expect(usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 });
    expect(rejected).toEqual({ prompt_tokens: -3, completion_tokens: 1.5, cached_tokens: "string(9)", reasoning_tokens: "Infinity", cost: -5000 });
    expect(readReportedUsage({ prompt_tokens: 1, completion_tokens: 1, cost: NaN }).rejected).toEqual({ cost: "NaN" });
    expect(readReportedUsage({ prompt_tokens: 1, completion_tokens: 1, cost: MAX_COST_PER_CALL_USD * 10 }).rejected).toHaveProperty("cost");
  });

  it("HARDEN-4: a rejected provider cost falls back to the price table, so the spend still counts", () => {
    const { usage } = readReportedUsage({ prompt_tokens: 1000, completion_tokens: 100, cost: -5000 });
    expect(replyCost("gpt-4.1-mini", usage, platform)).toEqual({ cost: 0.00056, priced: true, source: "table" });
  });

  it("USAGE-001: a valid provider cost is taken over the table", () => {
    expect(replyCost("gpt-4.1-mini", { prompt_tokens: 1000, completion_tokens: 100, cost: 0.5 }, platform)).toEqual({
      cost: 0.5,
      priced: true,
      source: "provider",
    });
  });

  it("HARDEN-4: an unpriced model costs the default price on the platform's key, and 0 (priced: false) on the agent's own key", () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 };
    expect(replyCost("my-llama", usage, { ...platform, fallback: { input: 3, output: 15 } })).toEqual({ cost: 18, priced: true, source: "default" });
    expect(replyCost("my-llama", usage, { ...platform, fallback: { input: 3, output: 15 }, platformKey: false })).toEqual({
      cost: 0,
      priced: false,
      source: "none",
    });
    expect(replyCost("gpt-4.1-mini", usage, { ...platform, platformKey: false }).source).toBe("table");
  });
});
