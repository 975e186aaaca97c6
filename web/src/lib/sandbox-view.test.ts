import { describe, expect, it } from "vitest";
import { renewalDelay, startingText, viewerMessage } from "./sandbox-view";

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

  it("UI-014: an open view renews its ticket after four fifths of what is left of it, never sooner than a second", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(renewalDelay("2030-01-01T00:15:00Z", now)).toBe(720_000);
    expect(renewalDelay("2030-01-01T00:00:10Z", now)).toBe(8_000);
    expect(renewalDelay("2030-01-01T00:00:00.500Z", now)).toBe(1000);
    expect(renewalDelay("2029-12-31T23:59:00Z", now)).toBe(1000);
    expect(renewalDelay("not a date", now)).toBe(1000);
  });
});
