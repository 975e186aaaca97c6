import { describe, expect, it } from "vitest";
import { addReasoningFragment, type ReasoningBlock, reasoningTextOf } from "./reasoning-blocks";

describe("provider reasoning blocks", () => {
  it("RUN-016: fragments sharing an index join into the block the provider sent; fields are kept as sent", () => {
    const blocks: ReasoningBlock[] = [];
    const stream = [
      { type: "reasoning.text", id: "r1", format: "anthropic-claude-v1", index: 0, text: "Check the " },
      { type: "reasoning.text", index: 0, text: "notes first." },
      { type: "reasoning.text", index: 0, text: "", signature: "sig-abc" },
      { type: "reasoning.encrypted", id: "r2", format: "anthropic-claude-v1", index: 1, data: "opaque==" },
    ];
    for (const fragment of stream) addReasoningFragment(blocks, fragment);
    expect(blocks).toEqual([
      { type: "reasoning.text", id: "r1", format: "anthropic-claude-v1", index: 0, text: "Check the notes first.", signature: "sig-abc" },
      { type: "reasoning.encrypted", id: "r2", format: "anthropic-claude-v1", index: 1, data: "opaque==" },
    ]);
  });

  it("RUN-016: a fragment without an index is a whole block; what is not an object is ignored", () => {
    const blocks: ReasoningBlock[] = [];
    for (const fragment of [{ type: "reasoning.summary", summary: "Plan" }, "noise", null, [1], { type: "reasoning.summary", summary: "Act" }]) {
      addReasoningFragment(blocks, fragment);
    }
    expect(blocks).toEqual([
      { type: "reasoning.summary", summary: "Plan" },
      { type: "reasoning.summary", summary: "Act" },
    ]);
  });

  it("RUN-016: the readable text of a fragment is its text or summary, never encrypted data", () => {
    expect(reasoningTextOf({ type: "reasoning.text", text: "a" })).toBe("a");
    expect(reasoningTextOf({ type: "reasoning.summary", summary: "b" })).toBe("b");
    expect(reasoningTextOf({ type: "reasoning.encrypted", data: "xyz" })).toBe("");
  });
});
