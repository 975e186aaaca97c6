import { elapsedAt, instantAt, lengthOf, MIN_GAP_MS, type Parsed, parse, type Span, spanAfter, spanAt, type WakeWindow } from "./windows";

/**
 * The random-window planner (SCHED-029..036). Wake-ups are planned one at a time: the
 * schedule row stores next_run_at and window_fires (the fires in the window that holds
 * next_run_at), and each fire plans the next from them.
 *
 * Slots and gaps are measured in window time, the window's existing part (windows.ts):
 * on a fall-back day whose repeated hour holds the window's start, the second pass before
 * the start is left out, so no wake-up shows a local time before the start. A gap in
 * window time is never shorter in real time, so the 5-minute floor holds.
 */

export { MIN_GAP_MS, nextWindow, validateWakeWindow, type WakeWindow, type WindowSpan, windowAt } from "./windows";

/** A plan the caller stores: next_run_at, and window_fires of the window that holds it (SCHED-033). */
export interface WakePlan {
  nextRunAt: Date;
  windowFires: number;
}

/** random() clamped into [0, 1), so a sloppy source cannot push a wake-up onto a window's end. */
function draw(random: () => number): number {
  return Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
}

/**
 * Uniform in the first slot of what is left of window `s` from `from` on,
 * [from, from + left / max_wakes) (SCHED-030), with the real (DST) length.
 */
function firstSlot(p: Parsed, s: Span, from: number, random: () => number): WakePlan {
  const done = elapsedAt(s, from);
  const slot = (lengthOf(s) - done) / p.max;
  return { nextRunAt: new Date(instantAt(s, done + Math.floor(draw(random) * slot))), windowFires: 0 };
}

/**
 * Plans from scratch with window_fires 0, for create, schedule resume and a guild's
 * routines re-enable (SCHED-011, SCHED-012, SCHED-035). Outside a window: the first slot of
 * the next window. Inside one: the first slot of what is left of it, counted from 5
 * minutes after now (so a new or resumed schedule never wakes the agent at once, nor
 * within 5 minutes of a fire before a pause); when under that is left, the next window.
 *
 * @example planFresh({ window, now: new Date(), random: Math.random }) // { nextRunAt, windowFires: 0 }
 */
export function planFresh(args: { window: WakeWindow; now: Date; random: () => number }): WakePlan {
  const p = parse(args.window);
  const now = args.now.getTime();
  const current = spanAt(p, now);
  if (current && elapsedAt(current, now + MIN_GAP_MS) < lengthOf(current)) return firstSlot(p, current, now + MIN_GAP_MS, args.random);
  const next = spanAfter(p, now);
  return firstSlot(p, next, next.start, args.random);
}

/**
 * window_fires after a fire (or a failed create, which advances the same way, SCHED-010).
 * A fire inside a window counts; a late fire outside any window does not (SCHED-034).
 * With `plannedAt` (the next_run_at that fired), a fire that lands in a later window than
 * the one planned starts that window at 1 instead of carrying the old count.
 *
 * @example afterFire({ window, firedAt: new Date(), windowFires: 1 }) // 2 when inside a window
 */
export function afterFire(args: { window: WakeWindow; firedAt: Date; windowFires: number; plannedAt?: Date | null }): number {
  const p = parse(args.window);
  const fired = spanAt(p, args.firedAt.getTime());
  if (!fired) return args.windowFires;
  if (args.plannedAt) {
    const planned = spanAt(p, args.plannedAt.getTime());
    if (!planned || planned.start !== fired.start) return 1;
  }
  return args.windowFires + 1;
}

/**
 * The next wake-up after a fire at `lastFire`, given window_fires from afterFire
 * (SCHED-031, SCHED-032): mean gap = time left in the window / (max_wakes - window_fires),
 * gap uniform in [0.5, 1.5] × mean and at least 5 minutes; a gap reaching the window's end
 * or a spent window moves to the first slot of the next window, where the count is 0.
 * Without a fire in a window (lastFire null, a late fire outside any window, or a caller
 * past that window's end) it plans like planFresh from max(now, lastFire).
 *
 * @example
 * const fires = afterFire({ window, firedAt, windowFires: row.window_fires, plannedAt: row.next_run_at });
 * const plan = planNext({ window, now: firedAt, lastFire: firedAt, windowFires: fires, random: Math.random });
 */
export function planNext(args: { window: WakeWindow; now: Date; lastFire: Date | null; windowFires: number; random: () => number }): WakePlan {
  const { window, random } = args;
  if (!args.lastFire) return planFresh({ window, now: args.now, random });
  const p = parse(window);
  const from = Math.max(args.now.getTime(), args.lastFire.getTime());
  const current = spanAt(p, args.lastFire.getTime());
  if (!current || from >= current.end) return planFresh({ window, now: new Date(from), random });
  const done = elapsedAt(current, from);
  const left = lengthOf(current) - done;
  if (args.windowFires < p.max) {
    const mean = left / (p.max - args.windowFires);
    const gap = Math.max(MIN_GAP_MS, Math.round(mean * (0.5 + draw(random))));
    if (gap < left) return { nextRunAt: new Date(instantAt(current, done + gap)), windowFires: args.windowFires };
  }
  const next = spanAfter(p, from);
  return firstSlot(p, next, next.start, random);
}

/**
 * The next `count` planned wake-ups from `from`, simulating a fire at each, for the
 * Routine tab's preview. Random, so two previews differ; pass a seeded source to pin them.
 *
 * @example previewWakeUps({ timezone: "Europe/Berlin", start: "09:00", end: "17:00", max_wakes: 3 }, new Date(), 5, Math.random)
 */
export function previewWakeUps(window: WakeWindow, from: Date, count: number, random: () => number): Date[] {
  const out: Date[] = [];
  let plan = planFresh({ window, now: from, random });
  while (out.length < count) {
    out.push(plan.nextRunAt);
    const firedAt = plan.nextRunAt;
    const windowFires = afterFire({ window, firedAt, windowFires: plan.windowFires, plannedAt: firedAt });
    plan = planNext({ window, now: firedAt, lastFire: firedAt, windowFires, random });
  }
  return out;
}
