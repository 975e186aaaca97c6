import { describe, expect, it } from "vitest";
import { addCounters, ZERO_COUNTERS } from "./counters";

describe("usage counters", () => {
  it("USAGE-UI: a guild's figures are its agents' sums, cost exact to the micro-dollar", () => {
    const tenth = { ...ZERO_COUNTERS, cost_usd: "0.100000", calls: 1, input_tokens: 10 };
    const fifth = { ...ZERO_COUNTERS, cost_usd: "0.200000", calls: 2, output_tokens: 5, cached_input_tokens: 3, reasoning_tokens: 1 };
    expect(addCounters([tenth, fifth])).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cached_input_tokens: 3,
      reasoning_tokens: 1,
      cost_usd: "0.300000",
      calls: 3,
    });
    expect(addCounters([])).toEqual(ZERO_COUNTERS);
    expect(
      addCounters([
        { ...ZERO_COUNTERS, cost_usd: "12345678.000001" },
        { ...ZERO_COUNTERS, cost_usd: "0.999999" },
      ]).cost_usd,
    ).toBe("12345679.000000");
  });
});
