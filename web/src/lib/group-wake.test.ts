import { describe, expect, it } from "vitest";
import { parseGroupWake } from "./group-wake";

describe("group wake row", () => {
  it("reads the latest message and whether the agent was tagged", () => {
    const text = 'Group Chat info\n{"latestMessage":{"seq":3,"author":"Operator","text":"@Scout look","at":"2026-01-01T10:00:00Z"},"youWereTagged":true}';
    expect(parseGroupWake(text)).toEqual({ latest: { seq: 3, author: "Operator", text: "@Scout look", at: "2026-01-01T10:00:00Z" }, tagged: true });
    expect(parseGroupWake('Group Chat info: {"youWereTagged":false}')).toEqual({ latest: null, tagged: false });
  });

  it("anything else is not a wake: the transcript shows it as text", () => {
    expect(parseGroupWake("Hello")).toBeNull();
    expect(parseGroupWake("Group Chat info\n{broken")).toBeNull();
    expect(parseGroupWake("Group Chat info\nno json")).toBeNull();
  });
});
