import { describe, expect, it } from "vitest";
import { labelledDays, monthRuns, niceMax, presetOf, presetRange, shortDay } from "./usage-chart";

const now = new Date("2026-11-30T22:00:00Z");

describe("usage chart", () => {
  it("USAGE-UI: presets are UTC ranges ending today; a range equal to one presses its button", () => {
    expect(presetRange("month", now)).toEqual({ from: "2026-11-01", to: "2026-11-30" });
    expect(presetRange("7", now)).toEqual({ from: "2026-11-24", to: "2026-11-30" });
    expect(presetRange("90", now)).toEqual({ from: "2026-09-02", to: "2026-11-30" });
    expect(presetOf({ from: "2026-11-01", to: "2026-11-30" }, now)).toBe("month");
    expect(presetOf({ from: "2026-11-01", to: "2026-11-29" }, now)).toBeUndefined();
  });

  it("USAGE-UI: axes round up to a plain figure and label at most the days asked, first and last included", () => {
    expect(niceMax(0.0032)).toBe(0.005);
    expect(niceMax(1)).toBe(1);
    expect(niceMax(250)).toBe(500);
    expect(niceMax(0)).toBe(1);
    expect(labelledDays(5, 8)).toEqual([0, 1, 2, 3, 4]);
    expect(labelledDays(30, 6)).toEqual([0, 6, 12, 18, 24, 29]);
    const many = labelledDays(366, 8);
    expect(many.length).toBeLessThanOrEqual(8);
    expect([many[0], many.at(-1)]).toEqual([0, 365]);
  });

  it("USAGE-UI: the month-to-date line breaks at each first of the month", () => {
    expect(monthRuns(["2026-01-30", "2026-01-31", "2026-02-01", "2026-02-02"])).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(monthRuns([])).toEqual([]);
    expect(shortDay("2026-11-30")).toBe("30 Nov");
  });
});
