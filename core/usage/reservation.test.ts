import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES, type Pricing } from "./pricing";
import { limitReachedMessage, promptTokensBound, reservation, spendReached, UNSET_MAX_TOKENS_HOLD, worstCaseCost } from "./reservation";

const platform: Pricing = { prices: DEFAULT_PRICES, fallback: null, platformKey: true };

describe("spend reservations", () => {
  it("USAGE-005: a call's worst case is its input tokens at the full price and max_tokens of reply, rounded up to a micro-dollar", () => {
    // gpt-4.1-mini: 0.4 in, 1.6 out per million tokens.
    expect(worstCaseCost("gpt-4.1-mini", { inputTokens: 1000, maxTokens: 100 }, platform)).toBe(0.00056);
    expect(worstCaseCost("openai/gpt-4.1-mini", { inputTokens: 1, maxTokens: 1 }, platform)).toBe(0.000002);
    // No max_tokens: the provider's default bounds the reply, and the hold assumes the largest.
    expect(worstCaseCost("mock-model", { inputTokens: 0, maxTokens: null }, platform)).toBe((UNSET_MAX_TOKENS_HOLD * 2) / 1e6);
    // Priced as replyCost prices: the operator's default on the platform's key, nothing on an agent's own key for an unknown model.
    expect(worstCaseCost("my-llama", { inputTokens: 1e6, maxTokens: 0 }, { ...platform, fallback: { input: 3, output: 15 } })).toBe(3);
    expect(worstCaseCost("my-llama", { inputTokens: 1e6, maxTokens: 1e6 }, { ...platform, platformKey: false, fallback: { input: 3, output: 15 } })).toBe(0);
    expect(worstCaseCost("gpt-4.1", { inputTokens: 1e6, maxTokens: 0 }, { ...platform, platformKey: false })).toBe(2);
  });

  it("USAGE-005: a prompt's input tokens are bounded from above: a token per 3 bytes of its JSON, and each image at its flat count", () => {
    const messages = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "What is two and two?" },
    ];
    const bound = promptTokensBound(messages, [], 0);
    // o200k_base takes about 4 bytes per token of English; the bound must not be lower than the text's own tokens.
    expect(bound).toBeGreaterThanOrEqual(Math.ceil("You are terse.What is two and two?".length / 4) + 8);
    expect(promptTokensBound(messages, [{ type: "function", function: { name: "notes_read" } }], 0)).toBeGreaterThan(bound);
    expect(promptTokensBound(messages, [], 2) - bound).toBe(3200);
    // Multi-byte text counts by bytes: a CJK character is 3 bytes, at most one token.
    expect(promptTokensBound([{ role: "user", content: "漢".repeat(300) }], [], 0)).toBeGreaterThanOrEqual(300);
  });

  it("USAGE-005 / OP-USAGE-1: a hold fits while the month's spend, the holds in flight and it stay within the limit, in exact micro-dollars", () => {
    expect(reservation({ limitUsd: null, spentUsd: 1e6, reservedUsd: 0 }, 1e6)).toEqual({ fits: true });
    expect(reservation({ limitUsd: 1, spentUsd: 0.5, reservedUsd: 0.3 }, 0.2)).toEqual({ fits: true });
    // 0.1 + 0.2 is 0.30000000000000004 in floats; in micro-dollars it is 0.3 and fits exactly.
    expect(reservation({ limitUsd: 0.6, spentUsd: 0.1, reservedUsd: 0.2 }, 0.3)).toEqual({ fits: true });
    const over = reservation({ limitUsd: 1, spentUsd: 0.5, reservedUsd: 0.3 }, 0.200001);
    expect(over).toEqual({
      fits: false,
      message:
        "The request could cost up to 0.200001 USD, more than the 0.200000 USD left under the organisation's monthly spend limit of 1 USD " +
        "(0.500000 USD spent, 0.300000 USD held by calls in flight); no model call was made",
    });
    // At or past the limit: the refusal a generation gets.
    expect(reservation({ limitUsd: 1, spentUsd: 1, reservedUsd: 0 }, 0)).toEqual({ fits: false, message: limitReachedMessage(1) });
    expect(limitReachedMessage(0.001)).toBe("The organisation reached its monthly spend limit of 0.001 USD; no model call was made");
    // Holds that fill the budget refuse even a call priced at 0; with room left such a call fits.
    expect(reservation({ limitUsd: 1, spentUsd: 0.4, reservedUsd: 0.6 }, 0).fits).toBe(false);
    expect(reservation({ limitUsd: 1, spentUsd: 0.4, reservedUsd: 0.5 }, 0).fits).toBe(true);
  });

  it("USAGE-005: twenty holds one after another: only as many as fit are taken, and spend with holds never passes the limit", () => {
    const limitUsd = 1;
    let reservedUsd = 0;
    let taken = 0;
    for (let i = 0; i < 20; i++) {
      const asked = worstCaseCost("mock-model", { inputTokens: 2_000, maxTokens: 100_000 }, platform); // 0.202
      if (reservation({ limitUsd, spentUsd: 0.1, reservedUsd }, asked).fits) {
        reservedUsd += asked;
        taken++;
      }
    }
    expect(taken).toBe(4);
    expect(0.1 + reservedUsd).toBeLessThanOrEqual(limitUsd);
  });

  it("USAGE-005: a generation's check counts the holds in flight beside the month's spend", () => {
    expect(spendReached({ limitUsd: null, monthCostUsd: 5, reservedUsd: 5 })).toBe(false);
    expect(spendReached({ limitUsd: 1, monthCostUsd: 0.4, reservedUsd: 0.5 })).toBe(false);
    expect(spendReached({ limitUsd: 1, monthCostUsd: 0.4, reservedUsd: 0.6 })).toBe(true);
    expect(spendReached({ limitUsd: 1, monthCostUsd: 1, reservedUsd: 0 })).toBe(true);
  });
});
