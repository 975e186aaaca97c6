import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_PIECE_BYTES, makeCounter } from "./bpe";
import { packageRanks } from "./package-ranks";
import { countText, prepareTokenCounter } from "./token-count";

beforeAll(() => prepareTokenCounter(packageRanks));

const encoder = new Tiktoken(o200kBase);
const reference = (text: string) => encoder.encode(text, [], []).length;

/** Deterministic mixed text: words, code, digits, unicode, emoji, whitespace runs, special-token text. */
function mixedText(seed: number, length: number): string {
  const atoms = [
    "the",
    " quick",
    "Brown",
    "fox's",
    "42",
    "12345678",
    " ",
    "  ",
    "\n",
    "\t",
    "é",
    "ü",
    "中文",
    "😀",
    "─",
    "=>",
    "{",
    "}",
    "();",
    "<|endoftext|>",
    "don't",
    "HTTPServer",
    "snake_case",
    "\r\n",
    "…",
    "∑",
  ];
  let s = "";
  let x = seed;
  while (s.length < length) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += atoms[x % atoms.length];
  }
  return s;
}

describe("GEN-019: the fast merge counts exactly as js-tiktoken", () => {
  it("GEN-019: equal counts to encoder.encode on mixed text", () => {
    const count = makeCounter(encoder, o200kBase.pat_str);
    for (let seed = 1; seed <= 40; seed++) {
      const text = mixedText(seed, 400);
      expect(count(text), text).toBe(reference(text));
    }
    const runs = ["x".repeat(700), "é".repeat(300), "=".repeat(500), " ".repeat(600), "ab".repeat(300)];
    for (const text of runs) expect(count(text), text.slice(0, 10)).toBe(reference(text));
    // Again, with every piece's count now kept: the same counts.
    for (let seed = 40; seed >= 1; seed--) {
      const text = mixedText(seed, 400);
      expect(count(text), text).toBe(reference(text));
    }
  });

  it("GEN-019: countText uses it and agrees with the reference", () => {
    const text = mixedText(99, 3000);
    expect(countText(text)).toBe(reference(text));
  });

  it("GEN-019: a long single-piece run is counted quickly (js-tiktoken alone takes seconds)", () => {
    const text = "x".repeat(8 * MAX_PIECE_BYTES);
    const started = performance.now();
    expect(countText(text)).toBe(1024); // 8 "x" per token, as js-tiktoken counts it
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
