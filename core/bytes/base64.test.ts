import { describe, expect, it } from "vitest";
import { fromBase64, toBase64 } from "./base64";

describe("base64 (core/bytes/base64)", () => {
  it("agrees with Node's Buffer both ways, for every byte value and past one slice", () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
    expect([...fromBase64(Buffer.from(bytes).toString("base64"))]).toEqual([...bytes]);
    expect(toBase64(new Uint8Array())).toBe("");
  });

  it("refuses text that is not base64", () => {
    expect(() => fromBase64("not base64!")).toThrow();
  });
});
