import { describe, expect, it } from "vitest";
import { afterFire, nextWindow, planFresh, planNext, previewWakeUps, validateWakeWindow, type WakeWindow, windowAt } from "./wake-window";

const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();
/** A random source that returns the given values in turn, then repeats the last. */
const seq = (...values: number[]) => {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
};
const office: WakeWindow = { timezone: "UTC", start: "09:00", end: "17:00", max_wakes: 4 };
const fieldsOf = (w: unknown) => validateWakeWindow(w).map((i) => i.field);

describe("wake window validation (SCHED-024..028)", () => {
  it("SCHED-024/025: a window in an IANA zone with HH:MM bounds is valid", () => {
    expect(validateWakeWindow(office)).toEqual([]);
    expect(validateWakeWindow({ timezone: "Asia/Kolkata", start: "00:00", end: "23:59", max_wakes: 287 })).toEqual([]);
  });

  it("SCHED-025: an unknown or offset-only zone names wake_window.timezone", () => {
    expect(fieldsOf({ ...office, timezone: "Mars/Olympus" })).toEqual(["wake_window.timezone"]);
    expect(fieldsOf({ ...office, timezone: "+02:00" })).toEqual(["wake_window.timezone"]);
    expect(fieldsOf({ ...office, timezone: 1 })).toEqual(["wake_window.timezone"]);
  });

  it("SCHED-025: malformed HH:MM names start or end", () => {
    expect(fieldsOf({ ...office, start: "9:00" })).toEqual(["wake_window.start"]);
    expect(fieldsOf({ ...office, start: "24:00" })).toEqual(["wake_window.start"]);
    expect(fieldsOf({ ...office, end: "12:60" })).toEqual(["wake_window.end"]);
    expect(fieldsOf({ ...office, end: "5pm" })).toEqual(["wake_window.end"]);
  });

  it("SCHED-027: start equal to end is rejected on wake_window.end", () => {
    expect(validateWakeWindow({ ...office, end: "09:00" })).toEqual([{ field: "wake_window.end", message: "must differ from start" }]);
  });

  it("SCHED-028: max_wakes must be a positive integer", () => {
    for (const max_wakes of [0, -1, 1.5, "3", null]) expect(fieldsOf({ ...office, max_wakes }), String(max_wakes)).toEqual(["wake_window.max_wakes"]);
  });

  it("SCHED-028: max_wakes must leave at least 5 minutes per wake-up, over midnight too", () => {
    expect(validateWakeWindow({ ...office, start: "09:00", end: "09:20", max_wakes: 4 })).toEqual([]);
    const issues = validateWakeWindow({ ...office, start: "09:00", end: "09:20", max_wakes: 5 });
    expect(issues).toEqual([{ field: "wake_window.max_wakes", message: expect.stringContaining("20-minute window fits at most 4") }]);
    expect(validateWakeWindow({ ...office, start: "23:50", end: "00:10", max_wakes: 4 })).toEqual([]);
    expect(fieldsOf({ ...office, start: "23:50", end: "00:10", max_wakes: 5 })).toEqual(["wake_window.max_wakes"]);
  });

  it("SCHED-024: each bad field is named at once; a non-object is the whole wake_window", () => {
    expect(fieldsOf({ timezone: "Nowhere", start: "x", end: "y", max_wakes: 0 })).toEqual([
      "wake_window.timezone",
      "wake_window.start",
      "wake_window.end",
      "wake_window.max_wakes",
    ]);
    expect(fieldsOf(null)).toEqual(["wake_window"]);
  });
});

describe("wake window planning (SCHED-029..036)", () => {
  it("SCHED-030: the first wake-up of a window lands uniformly in its first slot", () => {
    // 8 hours / 4 wake-ups: the first slot is [09:00, 11:00).
    const plan = (r: number) => planFresh({ window: office, now: at("2026-01-05T07:00:00Z"), random: () => r });
    expect(plan(0)).toEqual({ nextRunAt: at("2026-01-05T09:00:00Z"), windowFires: 0 });
    expect(iso(plan(0.5).nextRunAt)).toBe("2026-01-05T10:00:00.000Z");
    expect(plan(0.99999).nextRunAt.getTime()).toBeLessThan(at("2026-01-05T11:00:00Z").getTime());
    // A random source returning 1 still stays inside the slot.
    expect(plan(1).nextRunAt.getTime()).toBeLessThan(at("2026-01-05T11:00:00Z").getTime());
  });

  it("SCHED-031: after a fire the gap is uniform in 0.5x-1.5x of (time left) / (wakes left)", () => {
    const firedAt = at("2026-01-05T10:00:00Z");
    const windowFires = afterFire({ window: office, firedAt, windowFires: 0 });
    expect(windowFires).toBe(1);
    // 7 hours left, 3 wake-ups left: mean 140 minutes.
    const next = (r: number) => planNext({ window: office, now: firedAt, lastFire: firedAt, windowFires, random: () => r });
    expect(next(0)).toEqual({ nextRunAt: at("2026-01-05T11:10:00Z"), windowFires: 1 });
    expect(iso(next(0.5).nextRunAt)).toBe("2026-01-05T12:20:00.000Z");
    expect(iso(next(0.99999999).nextRunAt)).toBe("2026-01-05T13:30:00.000Z");
  });

  it("SCHED-031: a gap is never under 5 minutes", () => {
    const tight: WakeWindow = { timezone: "UTC", start: "09:00", end: "09:30", max_wakes: 6 };
    const firedAt = at("2026-01-05T09:01:00Z");
    // 29 minutes / 5 wake-ups = 5.8 min mean; 0.5x would be 2.9 min.
    const plan = planNext({ window: tight, now: firedAt, lastFire: firedAt, windowFires: 1, random: () => 0 });
    expect(plan).toEqual({ nextRunAt: at("2026-01-05T09:06:00Z"), windowFires: 1 });
  });

  it("SCHED-032: a gap reaching the window's end moves to the next window's first slot", () => {
    const firedAt = at("2026-01-05T16:00:00Z");
    // Last wake-up left: mean 60 min, 1.4x = 84 min passes 17:00.
    const plan = planNext({ window: office, now: firedAt, lastFire: firedAt, windowFires: 3, random: seq(0.9, 0.25) });
    expect(plan).toEqual({ nextRunAt: at("2026-01-06T09:30:00Z"), windowFires: 0 });
    // The 5-minute floor alone can reach the end.
    const late = at("2026-01-05T16:58:00Z");
    expect(planNext({ window: office, now: late, lastFire: late, windowFires: 1, random: () => 0 })).toEqual({
      nextRunAt: at("2026-01-06T09:00:00Z"),
      windowFires: 0,
    });
  });

  it("SCHED-032/036: a spent window moves to the next window's first slot", () => {
    const firedAt = at("2026-01-05T10:00:00Z");
    const plan = planNext({ window: office, now: firedAt, lastFire: firedAt, windowFires: 4, random: () => 0.5 });
    expect(plan).toEqual({ nextRunAt: at("2026-01-06T10:00:00Z"), windowFires: 0 });
  });

  it("SCHED-026: a window whose end is before its start spans midnight", () => {
    const night: WakeWindow = { timezone: "UTC", start: "22:00", end: "02:00", max_wakes: 2 };
    expect(windowAt(night, at("2026-01-02T01:00:00Z"))).toEqual({ start: at("2026-01-01T22:00:00Z"), end: at("2026-01-02T02:00:00Z") });
    expect(windowAt(night, at("2026-01-02T22:00:00Z"))?.start).toEqual(at("2026-01-02T22:00:00Z"));
    expect(windowAt(night, at("2026-01-02T02:00:00Z"))).toBeNull();
    expect(windowAt(night, at("2026-01-02T21:59:59.999Z"))).toBeNull();
    expect(nextWindow(night, at("2026-01-02T01:00:00Z"))).toEqual({ start: at("2026-01-02T22:00:00Z"), end: at("2026-01-03T02:00:00Z") });
    // First slot is 2 hours; after a fire at 23:30 the mean gap is 150 minutes (one wake-up
    // left), so 0.7x carries on past midnight in the same window.
    const first = planFresh({ window: night, now: at("2026-01-02T12:00:00Z"), random: () => 0.75 }).nextRunAt;
    expect(iso(first)).toBe("2026-01-02T23:30:00.000Z");
    const next = planNext({
      window: night,
      now: first,
      lastFire: first,
      windowFires: afterFire({ window: night, firedAt: first, windowFires: 0 }),
      random: () => 0.2,
    });
    expect(next).toEqual({ nextRunAt: at("2026-01-03T01:15:00Z"), windowFires: 1 });
  });

  it("SCHED-034: a late fire outside any window does not count and plans the next window", () => {
    const firedAt = at("2026-01-05T17:30:00Z");
    expect(afterFire({ window: office, firedAt, windowFires: 2 })).toBe(2);
    expect(planNext({ window: office, now: firedAt, lastFire: firedAt, windowFires: 2, random: () => 0 })).toEqual({
      nextRunAt: at("2026-01-06T09:00:00Z"),
      windowFires: 0,
    });
  });

  it("SCHED-033: a fire inside a window counts for that window; one late into a later window starts at 1", () => {
    expect(afterFire({ window: office, firedAt: at("2026-01-05T12:00:00Z"), windowFires: 2, plannedAt: at("2026-01-05T11:50:00Z") })).toBe(3);
    expect(afterFire({ window: office, firedAt: at("2026-01-06T09:10:00Z"), windowFires: 3, plannedAt: at("2026-01-05T16:50:00Z") })).toBe(1);
  });

  it("SCHED-035: create/resume mid-window starts at 0 with the first slot of what is left, 5 minutes on", () => {
    // 12:05 to 17:00 is 295 minutes; first slot 73.75 minutes.
    const plan = (r: number) => planFresh({ window: office, now: at("2026-01-05T12:00:00Z"), random: () => r });
    expect(plan(0)).toEqual({ nextRunAt: at("2026-01-05T12:05:00Z"), windowFires: 0 });
    expect(iso(plan(0.5).nextRunAt)).toBe("2026-01-05T12:41:52.500Z");
    // Under 5 minutes left: the next window.
    expect(planFresh({ window: office, now: at("2026-01-05T16:56:00Z"), random: () => 0 }).nextRunAt).toEqual(at("2026-01-06T09:00:00Z"));
    // No fire yet: planNext plans fresh.
    expect(planNext({ window: office, now: at("2026-01-05T07:00:00Z"), lastFire: null, windowFires: 3, random: () => 0 })).toEqual({
      nextRunAt: at("2026-01-05T09:00:00Z"),
      windowFires: 0,
    });
  });

  it("SCHED-025: DST change days give shorter and longer windows (Europe/Berlin)", () => {
    const early: WakeWindow = { timezone: "Europe/Berlin", start: "01:00", end: "05:00", max_wakes: 3 };
    // 2026-03-29: 01:00 CET to 05:00 CEST is 3 hours; the first slot is 1 hour.
    expect(windowAt(early, at("2026-03-29T01:00:00Z"))).toEqual({ start: at("2026-03-29T00:00:00Z"), end: at("2026-03-29T03:00:00Z") });
    expect(iso(planFresh({ window: early, now: at("2026-03-28T12:00:00Z"), random: () => 0.5 }).nextRunAt)).toBe("2026-03-29T00:30:00.000Z");
    // 2026-10-25: 01:00 CEST to 05:00 CET is 5 hours.
    expect(windowAt(early, at("2026-10-25T01:00:00Z"))).toEqual({ start: at("2026-10-24T23:00:00Z"), end: at("2026-10-25T04:00:00Z") });
  });

  it("SCHED-029: the preview simulates fires at each planned wake-up", () => {
    const out = previewWakeUps(office, at("2026-01-05T07:00:00Z"), 10, seq(0.5, 0.5, 0.5, 0.5, 0.9, 0.5));
    expect(out).toHaveLength(10);
    expect(iso(out[0]!)).toBe("2026-01-05T10:00:00.000Z");
    for (let i = 1; i < out.length; i++) expect(out[i]!.getTime()).toBeGreaterThan(out[i - 1]!.getTime());
    for (const d of out) expect(windowAt(office, d)).not.toBeNull();
  });
});
