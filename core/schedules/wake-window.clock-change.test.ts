import { describe, expect, it } from "vitest";
import { afterFire, MIN_GAP_MS, nextWindow, planFresh, planNext, previewWakeUps, type WakeWindow, windowAt } from "./wake-window";

const at = (iso: string) => new Date(iso);
/** Local wall time as people read it ("2026-03-29 03:06"), straight from Intl, not from the planner. */
const local = (zone: string, d: Date) =>
  new Intl.DateTimeFormat("sv-SE", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(d);
const constant = (r: number) => () => r;
const berlin = (start: string, end: string, max_wakes = 3): WakeWindow => ({ timezone: "Europe/Berlin", start, end, max_wakes });

/** Planned wake-ups from `from` until `until`, each fired on time (the preview's simulation). */
function wakesUntil(window: WakeWindow, from: Date, until: Date, random: () => number): Date[] {
  const out: Date[] = [];
  for (const d of previewWakeUps(window, from, 200, random)) {
    if (d >= until) break;
    out.push(d);
  }
  return out;
}

describe("wake windows on the days clocks spring forward (OP-SCHED-7, SCHED-025)", () => {
  it("OP-SCHED-7: a start inside the gap resolves to the first valid instant after it (Berlin 02:30 → 03:00 CEST, New York 02:30 → 03:00 EDT)", () => {
    expect(nextWindow(berlin("02:30", "06:00", 2), at("2026-03-28T12:00:00Z"))).toEqual({ start: at("2026-03-29T01:00:00Z"), end: at("2026-03-29T04:00:00Z") });
    const ny: WakeWindow = { timezone: "America/New_York", start: "02:30", end: "04:00", max_wakes: 1 };
    expect(nextWindow(ny, at("2026-03-07T12:00:00Z"))).toEqual({ start: at("2026-03-08T07:00:00Z"), end: at("2026-03-08T08:00:00Z") });
  });

  it("SCHED-025: Berlin 02:39-03:38 on 2026-03-29 keeps 03:00-03:38 CEST and wakes there", () => {
    const w = berlin("02:39", "03:38");
    expect(nextWindow(w, at("2026-03-28T12:00:00Z"))).toEqual({ start: at("2026-03-29T01:00:00Z"), end: at("2026-03-29T01:38:00Z") });
    for (const r of [0, 0.5, 0.99999]) {
      const wakes = wakesUntil(w, at("2026-03-28T12:00:00Z"), at("2026-03-29T12:00:00Z"), constant(r));
      expect(wakes.length, `random ${r}`).toBeGreaterThanOrEqual(1);
      expect(wakes.length).toBeLessThanOrEqual(3);
      for (const d of wakes)
        expect(local("Europe/Berlin", d) >= "2026-03-29 03:00" && local("Europe/Berlin", d) < "2026-03-29 03:38", local("Europe/Berlin", d)).toBe(true);
    }
  });

  it("SCHED-025: Berlin 01:14-02:25 on 2026-03-29 ends at 03:00 CEST and never wakes after it", () => {
    const w = berlin("01:14", "02:25");
    expect(windowAt(w, at("2026-03-29T00:30:00Z"))).toEqual({ start: at("2026-03-29T00:14:00Z"), end: at("2026-03-29T01:00:00Z") });
    // The latest draws every time: the wake-ups are as late as the planner can put them.
    const wakes = wakesUntil(w, at("2026-03-28T12:00:00Z"), at("2026-03-29T12:00:00Z"), constant(0.99999));
    expect(wakes.length).toBeGreaterThanOrEqual(1);
    for (const d of wakes) expect(d.getTime()).toBeLessThan(at("2026-03-29T01:00:00Z").getTime());
    expect(local("Europe/Berlin", wakes[wakes.length - 1]!) < "2026-03-29 02:00").toBe(true);
  });

  it("OP-SCHED-7: a window wholly inside the gap (Berlin 02:10-02:50) has no existing part, so no wake-up that day", () => {
    const w = berlin("02:10", "02:50", 2);
    expect(windowAt(w, at("2026-03-29T01:00:00Z"))).toBeNull();
    expect(nextWindow(w, at("2026-03-28T12:00:00Z"))).toEqual({ start: at("2026-03-30T00:10:00Z"), end: at("2026-03-30T00:50:00Z") });
    const wakes = wakesUntil(w, at("2026-03-28T12:00:00Z"), at("2026-03-31T00:00:00Z"), Math.random);
    expect(wakes.map((d) => local("Europe/Berlin", d).slice(0, 10))).not.toContain("2026-03-29");
    expect(wakes.map((d) => local("Europe/Berlin", d).slice(0, 10))).toContain("2026-03-30");
  });

  it("OP-SCHED-7: an end in the gap ends the window at the change, so windows over midnight never overlap", () => {
    // 03:10 to 02:50: the 28 March window ends at 02:50 on the 29th, which does not exist: 03:00 CEST.
    const w = berlin("03:10", "02:50", 4);
    expect(windowAt(w, at("2026-03-29T00:30:00Z"))).toEqual({ start: at("2026-03-28T02:10:00Z"), end: at("2026-03-29T01:00:00Z") });
    expect(windowAt(w, at("2026-03-29T01:05:00Z"))).toBeNull();
    expect(nextWindow(w, at("2026-03-29T00:30:00Z"))).toEqual({ start: at("2026-03-29T01:10:00Z"), end: at("2026-03-30T00:50:00Z") });
  });

  it("SCHED-025: Lord Howe's 30-minute spring-forward (02:00 → 02:30 on 2026-10-04) keeps the existing part of each window", () => {
    const lh = (start: string, end: string): WakeWindow => ({ timezone: "Australia/Lord_Howe", start, end, max_wakes: 2 });
    const from = at("2026-10-03T00:00:00Z");
    // 02:10-02:40: only 02:30-02:40 (+11:00) exists.
    expect(nextWindow(lh("02:10", "02:40"), from)).toEqual({ start: at("2026-10-03T15:30:00Z"), end: at("2026-10-03T15:40:00Z") });
    // 01:45-02:20: 01:45-02:00 (+10:30) exists.
    expect(nextWindow(lh("01:45", "02:20"), from)).toEqual({ start: at("2026-10-03T15:15:00Z"), end: at("2026-10-03T15:30:00Z") });
    // 02:05-02:25 lies wholly in the gap: the next window is the day after.
    expect(nextWindow(lh("02:05", "02:25"), from).start).toEqual(at("2026-10-04T15:05:00Z"));
    const wakes = wakesUntil(lh("02:10", "02:40"), from, at("2026-10-04T00:00:00Z"), constant(0.99999));
    expect(wakes.length).toBeGreaterThanOrEqual(1);
    for (const d of wakes) expect(local("Australia/Lord_Howe", d) >= "2026-10-04 02:30" && local("Australia/Lord_Howe", d) < "2026-10-04 02:40").toBe(true);
  });
});

describe("wake windows on the days clocks fall back (OP-SCHED-7, SCHED-031, SCHED-036)", () => {
  it("SCHED-036: a window through the repeated hour is one longer window, with at most max_wakes 5 minutes apart", () => {
    // Berlin 00:00-05:00 on 2026-10-25 lasts 6 hours (00:00 CEST to 05:00 CET).
    const w = berlin("00:00", "05:00", 4);
    expect(windowAt(w, at("2026-10-25T01:00:00Z"))).toEqual({ start: at("2026-10-24T22:00:00Z"), end: at("2026-10-25T04:00:00Z") });
    for (const r of [0, 0.3, 0.99999]) {
      const wakes = wakesUntil(w, at("2026-10-24T12:00:00Z"), at("2026-10-25T12:00:00Z"), constant(r));
      expect(wakes.length, `random ${r}`).toBeGreaterThanOrEqual(1);
      expect(wakes.length).toBeLessThanOrEqual(4);
      for (let i = 1; i < wakes.length; i++) expect(wakes[i]!.getTime() - wakes[i - 1]!.getTime()).toBeGreaterThanOrEqual(MIN_GAP_MS);
    }
  });

  it("OP-SCHED-7: a repeated start is its first occurrence, and the clock's second pass before the start is skipped (New York 01:30-03:00 on 2026-11-01)", () => {
    const w: WakeWindow = { timezone: "America/New_York", start: "01:30", end: "03:00", max_wakes: 1 };
    // 01:30 EDT (05:30Z) to 03:00 EST (08:00Z); 01:00-01:30 EST (06:00Z-06:30Z) shows a time before the start.
    const span = {
      start: at("2026-11-01T05:30:00Z"),
      end: at("2026-11-01T08:00:00Z"),
      skip: { start: at("2026-11-01T06:00:00Z"), end: at("2026-11-01T06:30:00Z") },
    };
    expect(nextWindow(w, at("2026-10-31T12:00:00Z"))).toEqual(span);
    // 120 minutes of the window exist; a draw of 0.3 is 36 minutes in: 30 before the skip, 6 after it.
    const first = planFresh({ window: w, now: at("2026-10-31T12:00:00Z"), random: constant(0.3) }).nextRunAt;
    expect(first).toEqual(at("2026-11-01T06:36:00Z"));
    expect(local("America/New_York", first)).toBe("2026-11-01 01:36");
    // After a fire at 01:50 EDT, 100 minutes are left for 2 wake-ups: a 25-minute gap in window time jumps the skip.
    const three = { ...w, max_wakes: 3 };
    const firedAt = at("2026-11-01T05:50:00Z");
    expect(planNext({ window: three, now: firedAt, lastFire: firedAt, windowFires: 1, random: constant(0) })).toEqual({
      nextRunAt: at("2026-11-01T06:45:00Z"),
      windowFires: 1,
    });
    // A late fire inside the skip still counts for its window.
    expect(afterFire({ window: three, firedAt: at("2026-11-01T06:10:00Z"), windowFires: 1, plannedAt: firedAt })).toBe(2);
    for (const r of [0, 0.2, 0.5, 0.8, 0.99999]) {
      for (const d of wakesUntil(three, at("2026-10-31T12:00:00Z"), at("2026-11-01T12:00:00Z"), constant(r))) {
        const shown = local("America/New_York", d);
        expect(shown >= "2026-11-01 01:30" && shown < "2026-11-01 03:00", shown).toBe(true);
      }
    }
  });

  it("OP-SCHED-7: Lord Howe's 30-minute fall-back (02:00 → 01:30 on 2026-04-05) skips the second pass before a repeated start", () => {
    const w: WakeWindow = { timezone: "Australia/Lord_Howe", start: "01:40", end: "03:00", max_wakes: 2 };
    expect(nextWindow(w, at("2026-04-04T00:00:00Z"))).toEqual({
      start: at("2026-04-04T14:40:00Z"),
      end: at("2026-04-04T16:30:00Z"),
      skip: { start: at("2026-04-04T15:00:00Z"), end: at("2026-04-04T15:10:00Z") },
    });
  });
});
