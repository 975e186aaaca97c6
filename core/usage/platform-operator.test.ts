import { describe, expect, it } from "vitest";
import { isPlatformOperator, platformOperators } from "./platform-operator";

describe("platform operators", () => {
  it("UI-010: reads the setting's ids, comma or space separated, any case; unset names nobody", () => {
    expect([...platformOperators(" A1, b2 ,,\nc3 ")]).toEqual(["a1", "b2", "c3"]);
    expect(platformOperators(undefined).size).toBe(0);
    expect(platformOperators("").size).toBe(0);
    expect(isPlatformOperator("11111111-1111-4111-8111-111111111111", "11111111-1111-4111-8111-111111111111".toUpperCase())).toBe(true);
    expect(isPlatformOperator("a,b", "c")).toBe(false);
    expect(isPlatformOperator(undefined, "a")).toBe(false);
  });
});
