import { describe, expect, it } from "vitest";
import { isKnownZone, offsetAt, resolveWall } from "./local-time";

const wall = (y: number, mo: number, d: number, h: number, mi: number) => Date.UTC(y, mo - 1, d, h, mi);
const iso = (ms: number) => new Date(ms).toISOString();
const shown = (r: ReturnType<typeof resolveWall>) => ({
  first: iso(r.first),
  repeatedBefore: r.repeatedBefore && { start: iso(r.repeatedBefore.start), end: iso(r.repeatedBefore.end) },
});

describe("local time in an IANA zone (SCHED-025, OP-SCHED-7)", () => {
  it("SCHED-025: offsets to the minute, half and quarter hours included", () => {
    expect(offsetAt("Asia/Kolkata", Date.UTC(2026, 0, 1)) / 60_000).toBe(330);
    expect(offsetAt("Pacific/Chatham", Date.UTC(2026, 0, 1)) / 60_000).toBe(825);
    expect(offsetAt("America/St_Johns", Date.UTC(2026, 0, 1)) / 60_000).toBe(-210);
    expect(offsetAt("Europe/Berlin", Date.UTC(2026, 6, 1, 0, 0, 0, 999)) / 60_000).toBe(120);
    expect(isKnownZone("Australia/Lord_Howe")).toBe(true);
    expect(isKnownZone("Mars/Olympus")).toBe(false);
  });

  it("OP-SCHED-7: a wall time that occurs once is that instant", () => {
    expect(shown(resolveWall("Europe/Berlin", wall(2026, 1, 15, 12, 0)))).toEqual({ first: "2026-01-15T11:00:00.000Z", repeatedBefore: null });
  });

  it("OP-SCHED-7: a wall time skipped by a spring-forward gap is the first valid instant after the gap", () => {
    expect(shown(resolveWall("Europe/Berlin", wall(2026, 3, 29, 2, 30)))).toEqual({ first: "2026-03-29T01:00:00.000Z", repeatedBefore: null });
    // The first skipped minute too, and the first minute after the gap is itself.
    expect(iso(resolveWall("Europe/Berlin", wall(2026, 3, 29, 2, 0)).first)).toBe("2026-03-29T01:00:00.000Z");
    expect(iso(resolveWall("Europe/Berlin", wall(2026, 3, 29, 3, 0)).first)).toBe("2026-03-29T01:00:00.000Z");
    // Chatham: 02:45 +12:45 → 03:45 +13:45 on 2026-09-27.
    expect(iso(resolveWall("Pacific/Chatham", wall(2026, 9, 27, 3, 0)).first)).toBe("2026-09-26T14:00:00.000Z");
  });

  it("OP-SCHED-7: a repeated wall time is its first occurrence; the clock's second pass up to it is reported", () => {
    expect(shown(resolveWall("America/New_York", wall(2026, 11, 1, 1, 30)))).toEqual({
      first: "2026-11-01T05:30:00.000Z",
      repeatedBefore: { start: "2026-11-01T06:00:00.000Z", end: "2026-11-01T06:30:00.000Z" },
    });
    // Chatham: 03:45 +13:45 → 02:45 +12:45 on 2026-04-05.
    expect(shown(resolveWall("Pacific/Chatham", wall(2026, 4, 5, 2, 50)))).toEqual({
      first: "2026-04-04T13:05:00.000Z",
      repeatedBefore: { start: "2026-04-04T14:00:00.000Z", end: "2026-04-04T14:05:00.000Z" },
    });
  });
});
