import { describe, expect, it } from "vitest";
import { storableText, storableValue, unstorableField } from "./storable";

describe("storable text", () => {
  it("HARDEN-5: NUL and lone surrogates become U+FFFD; paired surrogates (emoji) stay", () => {
    expect(storableText("a\u0000b")).toBe("a\uFFFDb");
    expect(storableText("x\uD800y\uDC00z")).toBe("x\uFFFDy\uFFFDz");
    expect(storableText("ok 😀")).toBe("ok 😀");
    expect(storableText("")).toBe("");
  });

  it("HARDEN-5: the first unstorable field of a body is named by its dotted path", () => {
    expect(unstorableField({ content: "fine", tagged: ["ok", "bad\u0000"] })).toBe("tagged.1");
    expect(unstorableField({ wake_window: { timezone: "\uDBFF" } })).toBe("wake_window.timezone");
    expect(unstorableField({ "k\u0000": 1 })).toBe("k\u0000");
    expect(unstorableField({ content: "😀", n: 1, flag: true, none: null })).toBeNull();
    expect(unstorableField("\u0000")).toBe("");
  });

  it("HARDEN-5: a provider's structure (reasoning blocks) is made storable string by string, keys included", () => {
    expect(storableValue([{ type: "reasoning.text", text: "a\u0000b", "k\u0000": 1, n: null }])).toEqual([
      { type: "reasoning.text", text: "a\uFFFDb", "k\uFFFD": 1, n: null },
    ]);
  });
});
