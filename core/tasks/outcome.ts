/**
 * How a task run ends and what its task becomes (TASK-024..032), as the spec's table says.
 * Pure: the task run's finalizing and the API's cancel and done both read it.
 *
 * @example
 *   statusAfterRun({ outcome: "end_turn", current: "running", autoResumes: 0, undelivered: 0 }, settings, now)
 *   // { status: "waiting", resumeAt: null, autoResumes: 0 }
 */

export const TASK_STATUSES = [
  "queued",
  "running",
  "waiting",
  "blocked",
  "rate_limited",
  "limit_reached",
  "in_review",
  "completed",
  "cancelled",
  "failed",
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TASK_OUTCOMES = [
  "completed",
  "end_turn",
  "handed_off",
  "blocked",
  "rate_limited",
  "limit_reached",
  "sandbox_lost",
  "connect_timeout",
  "provisioning_failed",
  "cancelled",
  "failed",
] as const;
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];

/** Outcomes the platform retries by itself, with a growing delay (TASK-029). */
export const RETRIED_OUTCOMES: ReadonlySet<TaskOutcome> = new Set(["sandbox_lost", "connect_timeout", "provisioning_failed"]);

/** Statuses a person closed or that ended for good: no run starts from them by itself. */
export const CLOSED_STATUSES: ReadonlySet<TaskStatus> = new Set(["completed", "cancelled", "failed"]);

/** The first retry waits this long; each further one twice as long (OP-TASK-3). */
export const RETRY_BASE_MS = 30_000;
/** No retry waits longer. */
export const RETRY_CAP_MS = 10 * 60_000;

/**
 * The delay before automatic restart number `attempt` (1-based): 30 s, 60 s, 120 s, …, at most 10 min.
 *
 * @example retryDelayMs(1) // 30_000
 */
export function retryDelayMs(attempt: number, baseMs = RETRY_BASE_MS): number {
  return Math.min(RETRY_CAP_MS, baseMs * 2 ** Math.max(0, attempt - 1));
}

export interface RunEnding {
  outcome: TaskOutcome;
  /** The task's status when the run ends: a person may have cancelled it or marked it done meanwhile. */
  current: TaskStatus;
  /** Automatic restarts already made in a row (TASK-029). */
  autoResumes: number;
  /** Messages no run has delivered yet (TASK-032). */
  undelivered: number;
  /** For rate_limited: when the provider's limit resets (epoch ms); null when it did not say. */
  resetAt?: number | null;
  /**
   * Best of N: an attempt without a pull request of its own closes as completed when it
   * completes (its parent picks the winner); others go to in_review.
   */
  closesOnCompletion?: boolean;
}

export interface TaskAfterRun {
  status: TaskStatus;
  /** Due no sooner than this (epoch ms); null: due at once when queued. */
  resumeAt: number | null;
  autoResumes: number;
}

/** When a rate-limited provider gives no reset time, the task waits this long. */
export const RATE_LIMIT_DEFAULT_WAIT_MS = 60_000;

/**
 * The task's status after a run ended with this outcome (the spec's table), given the
 * organisation's `runs.maxAutoResumes`. A cancelled task stays cancelled and a task marked
 * done stays completed, whatever the run reports (TASK-030); undelivered messages make any
 * other status queued, so the next run picks them up (TASK-032).
 */
export function statusAfterRun(ending: RunEnding, maxAutoResumes: number, now: number, retryBaseMs = RETRY_BASE_MS): TaskAfterRun {
  if (ending.current === "cancelled" || ending.current === "completed") {
    return { status: ending.current, resumeAt: null, autoResumes: 0 };
  }
  const mapped = mappedStatus(ending, maxAutoResumes, now, retryBaseMs);
  if (ending.undelivered > 0 && mapped.status !== "failed" && mapped.status !== "rate_limited" && mapped.status !== "queued") {
    return { status: "queued", resumeAt: null, autoResumes: mapped.autoResumes };
  }
  return mapped;
}

function mappedStatus(ending: RunEnding, maxAutoResumes: number, now: number, retryBaseMs: number): TaskAfterRun {
  switch (ending.outcome) {
    case "completed":
      return { status: ending.closesOnCompletion ? "completed" : "in_review", resumeAt: null, autoResumes: 0 };
    case "end_turn":
    case "cancelled":
      return { status: "waiting", resumeAt: null, autoResumes: 0 };
    case "handed_off":
      // The context filled: the next run starts from the hand-off text as soon as the queue plans.
      return { status: "queued", resumeAt: null, autoResumes: 0 };
    case "blocked":
      return { status: "blocked", resumeAt: null, autoResumes: 0 };
    case "limit_reached":
      return { status: "limit_reached", resumeAt: null, autoResumes: 0 };
    case "failed":
      return { status: "failed", resumeAt: null, autoResumes: 0 };
    case "rate_limited": {
      const resumeAt = ending.resetAt && ending.resetAt > now ? ending.resetAt : now + RATE_LIMIT_DEFAULT_WAIT_MS;
      return { status: "rate_limited", resumeAt, autoResumes: 0 };
    }
    case "sandbox_lost":
    case "connect_timeout":
    case "provisioning_failed": {
      const attempt = ending.autoResumes + 1;
      if (attempt > maxAutoResumes) return { status: "failed", resumeAt: null, autoResumes: ending.autoResumes };
      return { status: "queued", resumeAt: now + retryDelayMs(attempt, retryBaseMs), autoResumes: attempt };
    }
  }
}

/**
 * Whether a task is due now (TASK-006, OP-TASK-12): queued or rate_limited, and its resume
 * time (if any) has passed.
 */
export function isDue(task: { status: TaskStatus; resumeAt: number | null }, now: number): boolean {
  if (task.status !== "queued" && task.status !== "rate_limited") return false;
  return task.resumeAt === null || task.resumeAt <= now;
}

/**
 * The order due tasks start in (TASK-007, OP-TASK-4): by the time each last became due,
 * max(queued_at, resume_at), ties by creation, then by id so the order is total.
 */
export function dueOrder(a: DueTask, b: DueTask): number {
  const dueA = Math.max(a.queuedAt, a.resumeAt ?? 0);
  const dueB = Math.max(b.queuedAt, b.resumeAt ?? 0);
  return dueA - dueB || a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export interface DueTask {
  id: string;
  status: TaskStatus;
  queuedAt: number;
  resumeAt: number | null;
  createdAt: number;
}

/**
 * Which due tasks start now: oldest due first, as many as the free slots allow, none that
 * already has an active run (TASK-007, TASK-008).
 *
 * @example planStarts(due, new Set(["t1"]), 4, now) // up to 3 more ids, t1 excluded
 */
export function planStarts(candidates: readonly DueTask[], active: ReadonlySet<string>, maxConcurrent: number, now: number): string[] {
  const free = maxConcurrent - active.size;
  if (free <= 0) return [];
  return candidates
    .filter((task) => !active.has(task.id) && isDue(task, now))
    .sort(dueOrder)
    .slice(0, free)
    .map((task) => task.id);
}

/** The earliest time a not-yet-due task becomes due, for the queue's next alarm; null when none waits. */
export function nextDueAt(candidates: readonly DueTask[], now: number): number | null {
  let next: number | null = null;
  for (const task of candidates) {
    if (task.status !== "queued" && task.status !== "rate_limited") continue;
    if (task.resumeAt === null || task.resumeAt <= now) continue;
    if (next === null || task.resumeAt < next) next = task.resumeAt;
  }
  return next;
}
