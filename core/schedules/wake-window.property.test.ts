import { describe, expect, it } from "vitest";
import { mulberry32 } from "./seeded-random";
import { afterFire, MIN_GAP_MS, planFresh, planNext, validateWakeWindow, type WakeWindow, windowAt } from "./wake-window";

const DAY = 86_400_000;
const SEEDS = 100;
const SIMULATED_DAYS = 5;

/** Each zone with the days its clocks change in 2026 (Kolkata has none). */
const CASES: Array<{ zone: string; day: string }> = [
  { zone: "Europe/Berlin", day: "2026-03-29" },
  { zone: "Europe/Berlin", day: "2026-10-25" },
  { zone: "America/New_York", day: "2026-03-08" },
  { zone: "America/New_York", day: "2026-11-01" },
  { zone: "Asia/Kolkata", day: "2026-06-15" },
  { zone: "Pacific/Auckland", day: "2026-04-05" },
  { zone: "Pacific/Auckland", day: "2026-09-27" },
];

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** A random valid window; half of them open in the small hours, where the clocks change. */
function randomWindow(zone: string, rng: () => number): WakeWindow {
  const start = rng() < 0.5 ? Math.floor(rng() * 300) : Math.floor(rng() * 1440);
  const length = 5 + Math.floor(rng() * 1434);
  const fit = Math.floor(length / 5);
  // Mostly a handful of wake-ups; sometimes as many as the 5-minute rule allows.
  const max_wakes = rng() < 0.1 ? fit : 1 + Math.floor(rng() * Math.min(fit, 12));
  return { timezone: zone, start: hhmm(start), end: hhmm((start + length) % 1440), max_wakes };
}

interface Stats {
  fires: number;
  windows: number;
}

/**
 * Fires at each planned wake-up (a fifth of them late, by up to 3 hours) for several days
 * from `from`, checking the planner's invariants along the way.
 */
function simulate(window: WakeWindow, from: number, rng: () => number, stats: Stats): void {
  const firesIn = new Map<number, number[]>(); // window start → fire instants inside it
  let plan = planFresh({ window, now: new Date(from), random: rng });
  expect(plan.windowFires).toBe(0);
  const until = from + SIMULATED_DAYS * DAY;
  while (plan.nextRunAt.getTime() < until) {
    const planned = plan.nextRunAt;
    // Every planned wake-up is inside a window (SCHED-025, SCHED-030..032).
    const plannedWindow = windowAt(window, planned);
    expect(plannedWindow, `planned ${planned.toISOString()} outside any window`).not.toBeNull();
    // window_fires is the count of fires already in the window that holds next_run_at (SCHED-033).
    expect(plan.windowFires).toBe(firesIn.get(plannedWindow!.start.getTime())?.length ?? 0);

    const late = rng() < 0.2 ? Math.floor(rng() * 3 * 3_600_000) : 0;
    const firedAt = new Date(planned.getTime() + late);
    const firedWindow = windowAt(window, firedAt);
    if (firedWindow) {
      const key = firedWindow.start.getTime();
      const list = firesIn.get(key) ?? [];
      // Gaps between consecutive fires inside a window are never under 5 minutes (SCHED-031).
      const previous = list[list.length - 1];
      if (previous !== undefined) expect(firedAt.getTime() - previous).toBeGreaterThanOrEqual(MIN_GAP_MS);
      list.push(firedAt.getTime());
      firesIn.set(key, list);
      // Never more than max_wakes fires in one window (SCHED-036).
      expect(list.length).toBeLessThanOrEqual(window.max_wakes);
    }
    // A fire outside any window does not count (SCHED-034).
    const windowFires = afterFire({ window, firedAt, windowFires: plan.windowFires, plannedAt: planned });
    if (!firedWindow) expect(windowFires).toBe(plan.windowFires);
    plan = planNext({ window, now: firedAt, lastFire: firedAt, windowFires, random: rng });
    expect(plan.nextRunAt.getTime()).toBeGreaterThan(firedAt.getTime());
    stats.fires++;
  }
  stats.windows += firesIn.size;
}

describe("wake window planner properties (SCHED-025..036)", () => {
  it.each(CASES)("SCHED-025/026/030..036: $zone around $day: at most max_wakes per window, 5-minute gaps, wake-ups inside windows", ({ zone, day }) => {
    const stats: Stats = { fires: 0, windows: 0 };
    const changeDay = Date.parse(`${day}T00:00:00Z`);
    for (let seed = 1; seed <= SEEDS; seed++) {
      const rng = mulberry32(seed * 7919 + changeDay / DAY);
      const window = randomWindow(zone, rng);
      expect(validateWakeWindow(window), JSON.stringify(window)).toEqual([]);
      // Start anywhere from 3 days before the change day to the change day itself.
      const from = changeDay - Math.floor(rng() * 3 * DAY);
      try {
        simulate(window, from, rng, stats);
      } catch (err) {
        throw new Error(`seed ${seed}, window ${JSON.stringify(window)}, from ${new Date(from).toISOString()}: ${String(err)}`);
      }
    }
    // The simulation actually exercised the planner.
    expect(stats.fires).toBeGreaterThan(SEEDS * SIMULATED_DAYS);
    expect(stats.windows).toBeGreaterThan(SEEDS * (SIMULATED_DAYS - 2));
  });
});
