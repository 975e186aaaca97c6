import { describe, expect, it } from "vitest";
import { effectiveSpendLimit, parseSpendCeiling } from "./spend-limit";

describe("spend ceiling", () => {
  it("USAGE-005: the effective monthly limit is the lower of the organisation's limit and the operator's ceiling", () => {
    expect(effectiveSpendLimit("500.000000", "100.000000")).toBe(100);
    expect(effectiveSpendLimit("50", "100")).toBe(50);
    expect(effectiveSpendLimit(null, "100")).toBe(100);
    expect(effectiveSpendLimit("20", null)).toBe(20);
    expect(effectiveSpendLimit(null, undefined)).toBeNull();
    expect(effectiveSpendLimit("0", "100")).toBe(0);
  });

  it("HARDEN-4: the bootstrap script reads a ceiling in USD or none, and names a bad value", () => {
    expect(parseSpendCeiling("100")).toBe("100.000000");
    expect(parseSpendCeiling("0.5")).toBe("0.500000");
    expect(parseSpendCeiling("none")).toBeNull();
    for (const bad of ["", "-1", "abc", "1e9", "Infinity"]) expect(() => parseSpendCeiling(bad)).toThrow(/--spend-ceiling/);
  });
});
