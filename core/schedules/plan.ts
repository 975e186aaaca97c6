import { cronRuns, nextCronRun } from "./cron";
import { afterFire, planFresh, planNext, previewWakeUps, type WakePlan, type WakeWindow } from "./wake-window";

/** A schedule's trigger as stored: a cron or a wake window, never both (SCHED-002). */
export interface Trigger {
  cron: string | null;
  wakeWindow: WakeWindow | null;
}

/**
 * next_run_at planned from now with window_fires 0: create, resume and a guild's
 * routines re-enable (SCHED-011, SCHED-012, SCHED-035).
 *
 * @example freshPlan({ cron: "0 8 * * *", wakeWindow: null }, now, Math.random).nextRunAt // tomorrow 08:00 UTC
 */
export function freshPlan(trigger: Trigger, now: Date, random: () => number): WakePlan {
  if (trigger.cron) return { nextRunAt: nextCronRun(trigger.cron, now), windowFires: 0 };
  return planFresh({ window: trigger.wakeWindow!, now, random });
}

/**
 * The plan after a fire (or a failed creation, which advances the same way, SCHED-010).
 * A cron moves to its next occurrence after the fire, not after the planned time, so a
 * late fire never leaves a backlog of missed occurrences (SCHED-009).
 */
export function planAfterFire(trigger: Trigger, planned: WakePlan, firedAt: Date, random: () => number): WakePlan {
  if (trigger.cron) return { nextRunAt: nextCronRun(trigger.cron, firedAt), windowFires: 0 };
  const window = trigger.wakeWindow!;
  const windowFires = afterFire({ window, firedAt, windowFires: planned.windowFires, plannedAt: planned.nextRunAt });
  return planNext({ window, now: firedAt, lastFire: firedAt, windowFires, random });
}

/** The next `count` planned wake-ups from `from`, for the Routine tab's preview. */
export function previewPlan(trigger: Trigger, from: Date, count: number, random: () => number): Date[] {
  if (trigger.cron) return cronRuns(trigger.cron, from, count);
  return previewWakeUps(trigger.wakeWindow!, from, count, random);
}
