import { describe, expect, it } from "vitest";
import { scriptTimeoutS } from "./scripts";

describe("the script timeout", () => {
  it("SCRIPT-034: 120 s unless SCRIPT_TIMEOUT_S sets a whole number of seconds up to an hour", () => {
    expect(scriptTimeoutS(undefined)).toBe(120);
    expect(scriptTimeoutS("3")).toBe(3);
    for (const bad of ["", "0", "-5", "1.5", "abc", "3601"]) expect(scriptTimeoutS(bad), bad).toBe(120);
  });
});
