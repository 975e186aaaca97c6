/**
 * Which statuses a person's action moves a task from (TASK-019, TASK-030), and when a task's
 * volume has outlived its use (TASK-037). Pure: the API and the queue read these.
 */
import { CLOSED_STATUSES, TASK_STATUSES, type TaskStatus } from "./outcome";
import type { TaskSettings } from "./settings";

const except = (...kept: TaskStatus[]) => TASK_STATUSES.filter((status) => !kept.includes(status));

/**
 * A message queues the task again from these (reopening a closed one). Not from running (the
 * run takes it at a turn boundary), nor queued or rate_limited: those are due already, and
 * queueing them afresh would lose their place in line or skip a provider's reset.
 */
export const QUEUED_BY_MESSAGE: readonly TaskStatus[] = except("running", "queued", "rate_limited");

/** Cancel moves any open task; a closed one stays as it is. */
export const CANCELLABLE: readonly TaskStatus[] = TASK_STATUSES.filter((status) => !CLOSED_STATUSES.has(status));

/** Done moves any task not completed already (a person may close a failed or cancelled one as done). */
export const DONE_FROM: readonly TaskStatus[] = except("completed");

/** A task's times as the volume sweep reads them (epoch ms). */
export interface VolumeTimes {
  closedAt: number | null;
  lastRunEndedAt: number | null;
}

/**
 * When the task's volume may be deleted (TASK-037): retainAfterCloseSeconds after it closed
 * or idleTtlSeconds after its last run ended, whichever comes first; null when neither applies
 * (a task that never ran has no volume).
 *
 * @example volumeExpiresAt({ closedAt: t, lastRunEndedAt: null }, settings) // t + 7 days
 */
export function volumeExpiresAt(task: VolumeTimes, settings: TaskSettings): number | null {
  const times = [
    task.closedAt === null ? null : task.closedAt + settings["volumes.retainAfterCloseSeconds"] * 1000,
    task.lastRunEndedAt === null ? null : task.lastRunEndedAt + settings["volumes.idleTtlSeconds"] * 1000,
  ].filter((t): t is number => t !== null);
  return times.length ? Math.min(...times) : null;
}

/** How often the queue sweeps stale volumes. */
export const VOLUME_SWEEP_MS = 60 * 60_000;

/** A start the task object refused: the task is due again after this long. */
export const REFUSED_START_DELAY_MS = 30_000;
