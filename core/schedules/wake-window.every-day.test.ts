import { describe, expect, it } from "vitest";
import { mulberry32 } from "./seeded-random";
import { afterFire, MIN_GAP_MS, planFresh, planNext, validateWakeWindow, type WakeWindow } from "./wake-window";

/**
 * Every day of 2026 and 2027 in zones with all kinds of clock changes (an hour, 30 minutes
 * at Lord Howe, Casablanca's Ramadan change, the Chatham Islands' 45-minute offsets, zones
 * that dropped daylight saving), checked against local time computed here from Intl's
 * "GMT+hh:mm" zone names, never from the planner's own helpers.
 */

/** Each zone with its number of clock changes in 2026 and 2027 (Casablanca's are around Ramadan). */
const CHANGES: Record<string, number> = {
  "Europe/Berlin": 4,
  "America/New_York": 4,
  "America/Sao_Paulo": 0,
  "Australia/Lord_Howe": 4,
  // Two around Ramadan 2026, then one to +00 for good in September 2026 (tzdata 2026c, as in Node 24).
  "Africa/Casablanca": 3,
  "Asia/Kolkata": 0,
  "Pacific/Auckland": 4,
  "Pacific/Chatham": 4,
  "America/St_Johns": 4,
  "Asia/Tehran": 0,
  "Europe/London": 4,
  "Pacific/Apia": 0,
};
const ZONES = Object.keys(CHANGES);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const FIRST_DAY = Date.UTC(2026, 0, 1) / DAY;
const LAST_DAY = Date.UTC(2027, 11, 31) / DAY;
/** Random windows per day; more on the days around a clock change, half of them placed across it. */
const WINDOWS_PER_DAY = 1;
const WINDOWS_AROUND_A_CHANGE = 16;

/** The zone's UTC offset at an instant, from the "GMT+05:30" Intl shows as the zone's name. */
function offsetReader(zone: string): (ms: number) => number {
  const f = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
  return (ms) => {
    const name = f.formatToParts(ms).find((p) => p.type === "timeZoneName")!.value;
    const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
    if (!m) throw new Error(`unexpected zone name ${name}`);
    return m[1] ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * HOUR + Number(m[3]) * MIN) : 0;
  };
}

interface Change {
  at: number;
  before: number;
  after: number;
}

/** Every clock change from late 2025 to early 2028, found six hours at a time (changes are months apart) and narrowed to the second. */
function changesOf(offset: (ms: number) => number): Change[] {
  const out: Change[] = [];
  const step = 6 * HOUR;
  const end = Date.UTC(2028, 0, 10);
  for (let t = Date.UTC(2025, 11, 20); t < end; t += step) {
    const before = offset(t);
    const after = offset(t + step);
    if (before === after) continue;
    let lo = t;
    let hi = t + step;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (offset(mid) === before) lo = mid;
      else hi = mid;
    }
    out.push({ at: hi, before, after });
  }
  return out;
}

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
const minutesOf = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3));

/** A random valid window. With `around` (a local time of day, in minutes), it opens within hours of it. */
function randomWindow(zone: string, rng: () => number, around: number | null): WakeWindow {
  const start = around === null ? (rng() < 0.5 ? Math.floor(rng() * 300) : Math.floor(rng() * 1440)) : (around - 150 + Math.floor(rng() * 240) + 1440) % 1440;
  const length = rng() < 0.5 ? 5 + Math.floor(rng() * 180) : 5 + Math.floor(rng() * 1434);
  const fit = Math.floor(length / 5);
  // Mostly a handful of wake-ups; sometimes as many as the 5-minute rule allows.
  const max_wakes = rng() < 0.1 && fit <= 60 ? fit : 1 + Math.floor(rng() * Math.min(fit, 12));
  return { timezone: zone, start: hhmm(start), end: hhmm((start + length) % 1440), max_wakes };
}

/** The local window of day `day` as wall times (ms, as if UTC): [a, b). */
function wallWindow(w: WakeWindow, day: number): { a: number; b: number } {
  const s = minutesOf(w.start) * MIN;
  const e = minutesOf(w.end) * MIN;
  return { a: day * DAY + s, b: (e < s ? day + 1 : day) * DAY + e };
}

/** The day whose local window holds wall time `wall`, or null when none does. */
function windowDayOf(w: WakeWindow, wall: number): number | null {
  const date = Math.floor(wall / DAY);
  for (const day of [date, date - 1]) {
    const { a, b } = wallWindow(w, day);
    if (a <= wall && wall < b) return day;
  }
  return null;
}

/** Whether any instant shows a local time in [a, b): false only when a spring-forward gap swallows it whole. */
function exists(changes: Change[], a: number, b: number): boolean {
  return !changes.some((c) => c.after > c.before && a >= c.at + c.before && b <= c.at + c.after);
}

/**
 * Plans from 15 hours before local day `day` starts, firing on time at each wake-up, until
 * the first wake-up after that day's window. Returns the problems seen (empty when all holds).
 */
function checkDay(w: WakeWindow, day: number, offset: (ms: number) => number, changes: Change[], rng: () => number): string[] {
  const problems: string[] = [];
  const fires = new Map<number, number[]>(); // window day → fire instants
  let plan = planFresh({ window: w, now: new Date(day * DAY - 15 * HOUR), random: rng });
  for (let step = 0; ; step++) {
    if (step > 1000) return [...problems, "the planner never left the day"];
    const t = plan.nextRunAt.getTime();
    const wall = t + offset(t);
    const windowDay = windowDayOf(w, wall);
    if (windowDay === null) {
      problems.push(`wake-up at ${new Date(t).toISOString()} shows ${new Date(wall).toISOString().slice(0, 16)} local, outside every window`);
      break;
    }
    if (windowDay > day) break;
    fires.set(windowDay, [...(fires.get(windowDay) ?? []), t]);
    const windowFires = afterFire({ window: w, firedAt: plan.nextRunAt, windowFires: plan.windowFires, plannedAt: plan.nextRunAt });
    plan = planNext({ window: w, now: plan.nextRunAt, lastFire: plan.nextRunAt, windowFires, random: rng });
  }
  for (const [d, list] of fires) {
    if (list.length > w.max_wakes) problems.push(`${list.length} wake-ups in the window of day ${d}, max_wakes ${w.max_wakes}`);
    for (let i = 1; i < list.length; i++) {
      if (list[i]! - list[i - 1]! < MIN_GAP_MS)
        problems.push(`wake-ups ${new Date(list[i - 1]!).toISOString()} and ${new Date(list[i]!).toISOString()} under 5 minutes apart`);
    }
  }
  const { a, b } = wallWindow(w, day);
  const count = fires.get(day)?.length ?? 0;
  if (exists(changes, a, b) && count === 0) problems.push("no wake-up on a day whose window exists");
  if (!exists(changes, a, b) && count > 0) problems.push("wake-ups on a day whose window does not exist");
  return problems;
}

describe("wake windows on every day of 2026 and 2027 (SCHED-025, OP-SCHED-7)", () => {
  it.each(ZONES)(
    "SCHED-025/031/036, OP-SCHED-7: %s: every wake-up inside the existing part of its local window, 1..max_wakes a day, 5 minutes apart",
    (zone) => {
      const offset = offsetReader(zone);
      const changes = changesOf(offset);
      // Local day and time of day of each change, as the clock showed just before it.
      const changeDays = new Map(changes.map((c) => [Math.floor((c.at + c.before) / DAY), Math.floor(((((c.at + c.before) % DAY) + DAY) % DAY) / MIN)]));
      // The independent clock sees the changes the zone really has.
      expect(changes.length).toBe(CHANGES[zone]);
      const failures: string[] = [];
      let cases = 0;
      for (let day = FIRST_DAY; day <= LAST_DAY; day++) {
        const near = changeDays.get(day) ?? changeDays.get(day - 1) ?? changeDays.get(day + 1) ?? null;
        const count = near === null ? WINDOWS_PER_DAY : WINDOWS_AROUND_A_CHANGE;
        for (let k = 0; k < count; k++) {
          const seed = ZONES.indexOf(zone) * 1_000_003 + day * 31 + k;
          const rng = mulberry32(seed);
          const w = randomWindow(zone, rng, near !== null && k % 2 === 1 ? near : null);
          if (validateWakeWindow(w).length > 0) throw new Error(`invalid test window ${JSON.stringify(w)}`);
          cases++;
          for (const p of checkDay(w, day, offset, changes, rng)) {
            if (failures.length < 10) failures.push(`seed ${seed}, ${new Date(day * DAY).toISOString().slice(0, 10)}, ${JSON.stringify(w)}: ${p}`);
          }
        }
      }
      expect(failures).toEqual([]);
      // Windows were placed across every change.
      expect(cases).toBeGreaterThanOrEqual(730 + changes.length * 2 * (WINDOWS_AROUND_A_CHANGE - WINDOWS_PER_DAY));
    },
  );
});
