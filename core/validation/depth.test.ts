import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "./depth";

describe("nesting depth", () => {
  it("HARDEN: counts objects and arrays, not scalars, and stops looking past the bound", () => {
    expect(nestsDeeperThan("text", 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: "c" }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: "c" }] }, 2)).toBe(true);
    let deep: unknown = [];
    for (let i = 0; i < 500_000; i++) deep = [deep];
    expect(nestsDeeperThan(deep, 64)).toBe(true);
  });
});
