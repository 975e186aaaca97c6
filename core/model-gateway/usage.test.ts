import { describe, expect, it } from "vitest";
import { MAX_TOKENS_PER_CALL } from "../usage/reported-usage";
import { messagesUsageOfChat, platformUsage } from "./usage";

describe("usage between Anthropic's counts and the platform's", () => {
  it("counts the whole prompt, cache reads and writes included, with the cached part beside it", () => {
    expect(platformUsage({ input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 2000, output_tokens: 87 })).toEqual({
      usage: { prompt_tokens: 2312, completion_tokens: 87, cached_tokens: 2000, reasoning_tokens: 0 },
      rejected: {},
    });
    expect(platformUsage({ input_tokens: 5, output_tokens: 1, cache_read_input_tokens: null })).toEqual({
      usage: { prompt_tokens: 5, completion_tokens: 1, cached_tokens: 0, reasoning_tokens: 0 },
      rejected: {},
    });
  });

  it("drops a negative, fractional or non-numeric figure and lists it, as a Chat provider's are", () => {
    expect(platformUsage({ input_tokens: -4, output_tokens: 2.5, cache_read_input_tokens: "9", cache_creation_input_tokens: Number.NaN })).toEqual({
      usage: { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 },
      rejected: { input_tokens: -4, output_tokens: 2.5, cache_read_input_tokens: "string(9)", cache_creation_input_tokens: "NaN" },
    });
    const over = platformUsage({ input_tokens: MAX_TOKENS_PER_CALL, cache_read_input_tokens: MAX_TOKENS_PER_CALL, output_tokens: 1 });
    expect(over.usage.prompt_tokens).toBe(0);
    expect(over.rejected).toHaveProperty("prompt_tokens");
    expect(platformUsage(undefined).usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 });
  });

  it("splits a Chat answer's cached tokens out of its prompt, unless they are more than the prompt", () => {
    expect(messagesUsageOfChat({ prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 90 } })).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 90,
    });
    expect(messagesUsageOfChat({ prompt_tokens: 10, completion_tokens: -1, prompt_tokens_details: { cached_tokens: 20 } })).toEqual({
      input_tokens: 10,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });
});
