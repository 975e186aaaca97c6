import { describe, expect, it } from "vitest";
import { startingText, viewerMessage } from "./sandbox-view";

describe("Browser and CLI tabs (UI-011..014)", () => {
  it("UI-013: the view page's clipboard and connection messages are read; anything else posted is ignored", () => {
    expect(viewerMessage({ type: "vnc", clipboard: "copied text" })).toEqual({ clipboard: "copied text" });
    expect(viewerMessage({ type: "vnc", state: "connected" })).toEqual({ state: "connected" });
    expect(viewerMessage({ type: "vnc", state: "failed", message: "no rfb.js" })).toEqual({ state: "failed", message: "no rfb.js" });
    expect(viewerMessage({ type: "vnc", state: "hijacked" })).toBeNull();
    expect(viewerMessage({ type: "other", clipboard: "x" })).toBeNull();
    expect(viewerMessage("vnc")).toBeNull();
    expect(viewerMessage(null)).toBeNull();
  });

  it("UI-011: start-up progress follows the box's state", () => {
    expect(startingText(null)).toBe("Bringing the agent's box up…");
    expect(startingText({ box: "standard", status: "starting" })).toBe("Starting the agent's standard box…");
    expect(startingText({ box: "lite", status: "running" })).toMatch(/opening the view/);
  });
});
