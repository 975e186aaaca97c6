import { describe, expect, it } from "vitest";
import { costUsd, modelPriceFrom, priceFor, pricesFrom, usageMonth } from "./pricing";

describe("pricing", () => {
  it("USAGE-001: prices input, cached input and output per million tokens", () => {
    expect(costUsd("gpt-4.1-mini", { prompt_tokens: 1000, completion_tokens: 100 })).toEqual({ cost: 0.00056, priced: true });
    expect(costUsd("gpt-4.1-mini", { prompt_tokens: 1000, completion_tokens: 0, cached_tokens: 1000 }).cost).toBe(0.0001);
  });

  it("prefers the longest matching prefix and ignores a provider prefix", () => {
    expect(priceFor("gpt-4.1-mini-2025-04-14")?.input).toBe(0.4);
    expect(priceFor("openai/gpt-4.1")?.input).toBe(2);
  });

  it("takes a provider-reported cost over the table, and prices unknown models at 0", () => {
    expect(costUsd("gpt-4.1", { prompt_tokens: 10, completion_tokens: 10, cost: 0.123 })).toEqual({ cost: 0.123, priced: true });
    expect(costUsd("my-llama", { prompt_tokens: 10, completion_tokens: 10 })).toEqual({ cost: 0, priced: false });
  });

  it("HARDEN-4: a negative provider cost never replaces the table's price", () => {
    expect(costUsd("gpt-4.1-mini", { prompt_tokens: 1000, completion_tokens: 100, cost: -5000 })).toEqual({ cost: 0.00056, priced: true });
  });

  it("HARDEN-4: DEFAULT_MODEL_PRICE is one non-negative price, or none", () => {
    expect(modelPriceFrom('{"input": 3, "output": 15, "cachedInput": 0.3}')).toEqual({ input: 3, output: 15, cachedInput: 0.3 });
    expect(modelPriceFrom('{"input": 3}')).toBeNull();
    expect(modelPriceFrom('{"input": -1, "output": 1}')).toBeNull();
    expect(modelPriceFrom("nope")).toBeNull();
    expect(modelPriceFrom(undefined)).toBeNull();
  });

  it("keys monthly usage by the UTC month", () => {
    expect(usageMonth(new Date("2026-11-30T23:59:59.999Z"))).toBe("2026-11");
    expect(usageMonth(new Date("2026-12-01T00:00:00.000Z"))).toBe("2026-12");
  });

  it("adds MODEL_PRICES to the table and ignores malformed entries", () => {
    const prices = pricesFrom(JSON.stringify({ "my-llama": { input: 0.2, output: 0.4 }, broken: { input: "x" }, credit: { input: -1, output: 1 } }));
    expect(costUsd("my-llama-70b", { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 }, prices).cost).toBe(0.6);
    expect(prices.broken).toBeUndefined();
    expect(prices.credit).toBeUndefined();
    expect(pricesFrom("not json")).toBe(pricesFrom(undefined));
  });
});
