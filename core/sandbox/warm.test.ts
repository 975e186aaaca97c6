import { describe, expect, it } from "vitest";
import { MAX_WARM_BOXES, warmBoxName, warmPoolSize, warmSetting } from "./warm";

describe("the warm pool's settings", () => {
  it("SBX-002: a pool size is an integer from 0 to the maximum; unset takes the default", () => {
    expect(warmPoolSize("SANDBOX_WARM_LITE", undefined, 1)).toBe(1);
    expect(warmPoolSize("SANDBOX_WARM_LITE", " ", 1)).toBe(1);
    expect(warmPoolSize("SANDBOX_WARM_LITE", "0", 1)).toBe(0);
    expect(warmPoolSize("SANDBOX_WARM_LITE", String(MAX_WARM_BOXES), 0)).toBe(MAX_WARM_BOXES);
    for (const bad of ["-1", "1.5", "lots", String(MAX_WARM_BOXES + 1)]) {
      expect(warmPoolSize("SANDBOX_WARM_STANDARD", bad, 0)).toMatch(/^SANDBOX_WARM_STANDARD must be an integer from 0 to 20/);
    }
  });

  it("SBX-034: a warm box's name is never a holder's (an agent id or task:<id>)", () => {
    expect(warmBoxName("standard", "abc")).toBe("warm:standard:abc");
    expect(warmSetting("lite")).toBe("SANDBOX_WARM_LITE");
    expect(warmSetting("standard")).toBe("SANDBOX_WARM_STANDARD");
  });
});
