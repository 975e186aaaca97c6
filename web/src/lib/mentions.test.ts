import { describe, expect, it } from "vitest";
import { insertMention, mentionParts } from "./mentions";

describe("mentions", () => {
  it("finds @Name of the guild's agents case-insensitively, the longest name first, not inside words or addresses", () => {
    const names = ["Scout", "Scout Two", "Ada"];
    expect(mentionParts("@scout two, ask @ADA; mail ada@example.com or @Scouting @Ada-2 @nobody", names)).toEqual([
      { text: "@scout two", mention: "Scout Two" },
      { text: ", ask " },
      { text: "@ADA", mention: "Ada" },
      { text: "; mail ada@example.com or @Scouting @Ada-2 @nobody" },
    ]);
    expect(mentionParts("no mentions", names)).toEqual([{ text: "no mentions" }]);
    expect(mentionParts("", names)).toEqual([]);
  });

  it("inserts @Name at the caret with the spaces it needs", () => {
    expect(insertMention("", 0, "Scout")).toEqual({ text: "@Scout ", caret: 7 });
    expect(insertMention("Hello", 5, "Scout")).toEqual({ text: "Hello @Scout ", caret: 13 });
    expect(insertMention("Hi  there", 3, "Ada")).toEqual({ text: "Hi @Ada there", caret: 7 });
    expect(insertMention("x", 99, "Ada")).toEqual({ text: "x @Ada ", caret: 7 });
  });
});
