import { describe, expect, it } from "vitest";
import { type ComposerKey, sendsMessage } from "./composer-keys";

const key = (over: Partial<ComposerKey>): ComposerKey => ({ key: "Enter", shiftKey: false, ctrlKey: false, metaKey: false, isComposing: false, ...over });

describe("sendsMessage", () => {
  it("UI-CONV: Enter and Ctrl/Cmd+Enter send; Shift+Enter and other keys do not", () => {
    expect(sendsMessage(key({}))).toBe(true);
    expect(sendsMessage(key({ ctrlKey: true }))).toBe(true);
    expect(sendsMessage(key({ metaKey: true }))).toBe(true);
    expect(sendsMessage(key({ shiftKey: true }))).toBe(false);
    expect(sendsMessage(key({ key: "a" }))).toBe(false);
  });

  it("UI-CONV: nothing sends while an input method is composing", () => {
    expect(sendsMessage(key({ isComposing: true }))).toBe(false);
    expect(sendsMessage(key({ keyCode: 229 }))).toBe(false);
    expect(sendsMessage(key({ ctrlKey: true, isComposing: true }))).toBe(false);
  });
});
