import { describe, expect, it } from "vitest";
import { addDays, monthStart, parseDateRange } from "./date-range";

const now = new Date("2026-11-30T23:30:00Z");

describe("usage date range", () => {
  it("USAGE-UI: no parameters mean this UTC month to date; a lone to starts on its month's first day", () => {
    expect(parseDateRange({}, now)).toEqual({ range: { from: "2026-11-01", to: "2026-11-30", days: 30 } });
    expect(parseDateRange({ to: "2024-02-10" }, now)).toEqual({ range: { from: "2024-02-01", to: "2024-02-10", days: 10 } });
    expect(parseDateRange({ from: "2026-11-24" }, now)).toEqual({ range: { from: "2026-11-24", to: "2026-11-30", days: 7 } });
    expect(parseDateRange({ from: "2026-11-30", to: "2026-11-30" }, now)).toEqual({ range: { from: "2026-11-30", to: "2026-11-30", days: 1 } });
  });

  it("USAGE-UI: a bad date, from after to and a range over 366 days are each refused naming the parameter", () => {
    expect(parseDateRange({ from: "2026-02-30" }, now)).toMatchObject({ issues: [{ field: "from" }] });
    expect(parseDateRange({ to: "yesterday" }, now)).toMatchObject({ issues: [{ field: "to" }] });
    expect(parseDateRange({ from: "2026-1-5", to: "2026-13-01" }, now)).toMatchObject({ issues: [{ field: "to" }, { field: "from" }] });
    expect(parseDateRange({ from: "2026-11-02", to: "2026-11-01" }, now)).toMatchObject({
      issues: [{ field: "from", message: expect.stringContaining("after") }],
    });
    expect(parseDateRange({ from: "2024-01-01", to: "2024-12-31" }, now)).toMatchObject({ range: { days: 366 } });
    expect(parseDateRange({ from: "2025-01-01", to: "2026-01-02" }, now)).toMatchObject({
      issues: [{ field: "to", message: expect.stringContaining("367 days") }],
    });
  });

  it("USAGE-UI: day arithmetic crosses months and leap days in UTC", () => {
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(monthStart("2026-11-17")).toBe("2026-11-01");
  });
});
