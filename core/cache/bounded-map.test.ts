import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map";

describe("BoundedMap", () => {
  it("HARDEN: keeps at most max entries, dropping the oldest set; setting a key again makes it the newest", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2).set("a", 3).set("c", 4);
    expect([...map.entries()]).toEqual([
      ["a", 3],
      ["c", 4],
    ]);
    expect(map.size).toBe(2);
  });
});
