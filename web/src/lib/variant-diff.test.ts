import { describe, expect, it } from "vitest";
import { diffText, diffToolCalls, tokens } from "./variant-diff";

const call = (name: string, args: string) => ({ function: { name, arguments: args } });

describe("what-if diff", () => {
  it("splits text into words that keep their whitespace", () => {
    expect(tokens("a  b\nc")).toEqual(["a  ", "b\n", "c"]);
    expect(tokens("  lead")).toEqual(["  ", "lead"]);
    expect(tokens("")).toEqual([]);
  });

  it("diffs words: kept, removed and added parts join back to each text", () => {
    const parts = diffText("the cat sat down", "the dog sat down today");
    expect(parts).toEqual([
      { kind: "same", text: "the " },
      { kind: "removed", text: "cat " },
      { kind: "added", text: "dog " },
      { kind: "same", text: "sat " },
      { kind: "removed", text: "down" },
      { kind: "added", text: "down today" },
    ]);
    const before = parts
      .filter((p) => p.kind !== "added")
      .map((p) => p.text)
      .join("");
    const after = parts
      .filter((p) => p.kind !== "removed")
      .map((p) => p.text)
      .join("");
    expect(before).toBe("the cat sat down");
    expect(after).toBe("the dog sat down today");
  });

  it("equal texts are one kept part; empty sides are all added or all removed", () => {
    expect(diffText("same words", "same words")).toEqual([{ kind: "same", text: "same words" }]);
    expect(diffText("", "new")).toEqual([{ kind: "added", text: "new" }]);
    expect(diffText("old", "")).toEqual([{ kind: "removed", text: "old" }]);
    expect(diffText("", "")).toEqual([]);
  });

  it("very long texts are not searched: one removed part and one added", () => {
    const long = "w ".repeat(5_000);
    expect(diffText(long, `${long}x`)).toEqual([
      { kind: "removed", text: long },
      { kind: "added", text: `${long}x` },
    ]);
  });

  it("compares tool calls by position, arguments as JSON", () => {
    expect(
      diffToolCalls(
        [call("shell", '{"command":"ls","cwd":"/"}'), call("notes_read", "{}"), call("gone", "{}")],
        [call("shell", '{ "cwd": "/", "command": "ls" }'), call("notes_read", '{"title":"x"}')],
      ),
    ).toEqual([
      { kind: "same", name: "shell", arguments: '{ "cwd": "/", "command": "ls" }' },
      { kind: "changed", name: "notes_read", before: { name: "notes_read", arguments: "{}" }, arguments: '{"title":"x"}' },
      { kind: "removed", name: "gone", arguments: "{}" },
    ]);
    expect(diffToolCalls([], [call("a", "not json")])).toEqual([{ kind: "added", name: "a", arguments: "not json" }]);
    expect(diffToolCalls([call("a", "x")], [call("b", "x")])[0]!.kind).toBe("changed");
  });
});
