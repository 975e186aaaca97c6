import { describe, expect, it } from "vitest";
import { concatBytes } from "./concat";

describe("concatBytes", () => {
  it("joins chunks in order, views into larger buffers included, and an empty list is empty", () => {
    const view = new Uint8Array([9, 4, 5, 9]).subarray(1, 3);
    expect([...concatBytes([new Uint8Array([1, 2]), new Uint8Array(0), new Uint8Array([3]), view])]).toEqual([1, 2, 3, 4, 5]);
    expect(concatBytes([]).byteLength).toBe(0);
  });
});
