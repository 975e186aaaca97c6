import { randomBytes } from "node:crypto";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { InflateError, inflateZlib, NeedInput } from "./inflate";

const text = new TextEncoder().encode("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\n\n".repeat(50));

describe("inflate", () => {
  it("TASK-017: inflates stored, fixed and dynamic blocks and reports where the stream ends", () => {
    for (const data of [text, randomBytes(70_000), new Uint8Array(0), new Uint8Array(100_000)]) {
      for (const level of [0, 1, 9]) {
        const z = deflateSync(data, { level });
        const input = new Uint8Array([7, 7, ...z, 1, 2, 3]);
        const kept = inflateZlib(input, 2, input.length, data.length, true);
        expect(kept.end).toBe(2 + z.length);
        expect(Buffer.from(kept.data!).equals(Buffer.from(data))).toBe(true);
        // Counted only, through the window: the same end.
        expect(inflateZlib(input, 2, input.length, data.length, false)).toEqual({ end: 2 + z.length, data: null });
      }
    }
  });

  it("TASK-017: a cut stream asks for more input at any cut; a corrupt one or a wrong size is an InflateError", () => {
    const z = deflateSync(text);
    for (let cut = 0; cut < z.length; cut += 7) expect(() => inflateZlib(z, 0, cut, text.length, true)).toThrow(NeedInput);
    expect(() => inflateZlib(z, 0, z.length, text.length - 1, true)).toThrow(InflateError);
    expect(() => inflateZlib(z, 0, z.length, text.length + 1, false)).toThrow(InflateError);
    expect(() => inflateZlib(new Uint8Array([0x78, 0x9c, 0xff, 0xff, 0xff]), 0, 5, 10, true)).toThrow(InflateError);
    expect(() => inflateZlib(new Uint8Array([0x12, 0x34, 0, 0]), 0, 4, 1, true)).toThrow(InflateError);
    // Random garbage after a valid header never throws anything but these two.
    for (let i = 0; i < 200; i++) {
      const junk = new Uint8Array([0x78, 0x9c, ...randomBytes(64)]);
      try {
        inflateZlib(junk, 0, junk.length, 1000, i % 2 === 0);
      } catch (error) {
        expect(error instanceof NeedInput || error instanceof InflateError).toBe(true);
      }
    }
  });
});
