import type { Task, TaskMessage, TaskRun } from "./api-types";

/**
 * The task board's and the task page's pure rules: which column a status belongs to, the
 * order of cards, which of two copies of a task is newer, merging lists the API answers
 * with what the page already holds, and the wording of runs and their timings.
 */

/** The board's columns, left to right, and the statuses each gathers. */
export const TASK_COLUMNS = [
  { key: "queued", label: "Queued", statuses: ["queued", "rate_limited"] },
  { key: "running", label: "Running", statuses: ["running"] },
  { key: "waiting", label: "Waiting for you", statuses: ["waiting", "blocked", "limit_reached"] },
  { key: "review", label: "In review", statuses: ["in_review"] },
  { key: "done", label: "Done", statuses: ["completed", "cancelled", "failed"] },
] as const;

export type ColumnKey = (typeof TASK_COLUMNS)[number]["key"];

/** Statuses a person closed or that ended for good. */
export const CLOSED_TASK_STATUSES: ReadonlySet<string> = new Set(["completed", "cancelled", "failed"]);

/** What the board needs of a task; a status this console does not know yet still shows (under Queued). */
export type BoardTask = Pick<Task, "id" | "key" | "created_at" | "updated_at"> & { status: string };

/**
 * The column of a status; a status the console does not know yet shows under Queued
 * rather than vanishing from the board.
 *
 * @example columnOf("blocked") // "waiting"
 */
export function columnOf(status: string): ColumnKey {
  return TASK_COLUMNS.find((c) => (c.statuses as readonly string[]).includes(status))?.key ?? "queued";
}

/**
 * The tasks by column, every column present (empty ones too). Within a column the task
 * that moved last comes first, so what just changed is at the top; ties by key.
 *
 * @example boardColumns([{ id: "1", key: "WEB-1", status: "waiting", … }]).find((c) => c.key === "waiting")!.tasks // [WEB-1]
 */
export function boardColumns<T extends BoardTask>(tasks: readonly T[]): Array<{ key: ColumnKey; label: string; tasks: T[] }> {
  const columns = TASK_COLUMNS.map((c) => ({ key: c.key as ColumnKey, label: c.label as string, tasks: [] as T[] }));
  for (const task of tasks) columns.find((c) => c.key === columnOf(task.status))!.tasks.push(task);
  for (const column of columns) column.tasks.sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.key.localeCompare(b.key, "en", { numeric: true }));
  return columns;
}

const time = (iso: string | null | undefined) => (iso ? new Date(iso).getTime() : Number.NaN);

/**
 * The newer of two copies of one task, by `updated_at` (every change moves it): an answer
 * read before the user's action was applied never puts back the status it replaced.
 * Equal times keep the incoming copy.
 *
 * @example newerTask(afterCancel, lateListCopy) // afterCancel, when lateListCopy was read before the cancel
 */
export function newerTask<T extends { updated_at: string }>(held: T | null, incoming: T): T {
  if (!held) return incoming;
  return time(held.updated_at) > time(incoming.updated_at) ? held : incoming;
}

/**
 * A list the API answered, with the copies the page holds where they are newer (see
 * newerTask), each task once (one read in two parts may list a task that moved between
 * them twice: the newer copy stays). Tasks missing from the answer go: the answer is the
 * list as it now stands.
 */
export function withNewerTasks<T extends { id: string; updated_at: string }>(held: readonly T[], incoming: readonly T[]): T[] {
  const byId = new Map(held.map((t) => [t.id, t]));
  const out = new Map<string, T>();
  for (const t of incoming) out.set(t.id, newerTask(out.get(t.id) ?? byId.get(t.id) ?? null, t));
  return [...out.values()];
}

/** What the page needs of a task message. */
export type HeldMessage = Pick<TaskMessage, "id" | "created_at" | "delivered_at">;

/**
 * The messages the page holds with those the API answered: each once, oldest first. A
 * message never goes back from delivered to queued, and one the page just sent stays
 * even when an answer read before it was sent does not list it yet.
 *
 * @example mergeMessages([sent], []) // [sent]
 */
export function mergeMessages<M extends HeldMessage>(held: readonly M[], incoming: readonly M[]): M[] {
  const byId = new Map(held.map((m) => [m.id, m]));
  for (const m of incoming) {
    const old = byId.get(m.id);
    byId.set(m.id, old?.delivered_at && !m.delivered_at ? old : m);
  }
  return [...byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** What the page needs of a task run. */
export type HeldRun = Pick<TaskRun, "id" | "run_id" | "outcome" | "created_at" | "ended_at">;

/**
 * The task's runs the page holds with those the API answered: each once, oldest first; an
 * ended run never shows as active again.
 */
export function mergeRuns<R extends HeldRun>(held: readonly R[], incoming: readonly R[]): R[] {
  const byId = new Map(held.map((r) => [r.id, r]));
  for (const r of incoming) {
    const old = byId.get(r.id);
    byId.set(r.id, old?.outcome && !r.outcome ? old : r);
  }
  return [...byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/**
 * The run whose transcript the task page shows: the active one, else the latest.
 *
 * @example shownRun([ended, active]) // active
 */
export function shownRun<R extends HeldRun>(runs: readonly R[]): R | null {
  return runs.find((r) => r.outcome === null) ?? runs.at(-1) ?? null;
}

/**
 * A duration as people read it: seconds under a minute, then minutes and seconds, then
 * hours and minutes.
 *
 * @example duration(75_000) // "1 min 15 s"
 */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "–";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  const m = Math.floor(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ""}`;
}

/**
 * How long a run took, or has taken so far while it is active.
 *
 * @example runDuration({ created_at: "…T10:00:00Z", ended_at: "…T10:02:00Z" }, now) // "2 min"
 */
export function runDuration(run: { created_at: string; ended_at: string | null }, now: number): string {
  return duration((run.ended_at ? time(run.ended_at) : now) - time(run.created_at));
}

/** How each outcome of a run reads, and what it did to the task (TASK-024..031). */
const OUTCOMES: Record<string, string> = {
  completed: "Completed: the agent finished the task",
  end_turn: "Released: no message came in time",
  handed_off: "Handed off: its context filled, the next run goes on from its notes",
  blocked: "Blocked: a blocking question went unanswered",
  rate_limited: "Rate limited: resumes by itself",
  limit_reached: "Limit reached: a budget or the turn limit",
  sandbox_lost: "Sandbox lost: retried",
  connect_timeout: "The box did not answer: retried",
  provisioning_failed: "The box could not start: retried",
  cancelled: "Cancelled",
  failed: "Failed",
};

/**
 * A run's outcome in words; an active run (no outcome yet) is "Active".
 *
 * @example outcomeText("end_turn") // "Released: no message came in time"
 */
export function outcomeText(outcome: string | null): string {
  if (outcome === null) return "Active";
  return OUTCOMES[outcome] ?? outcome;
}

/**
 * A status as the badge reads it.
 *
 * @example statusText("limit_reached") // "limit reached"
 */
export const statusText = (status: string): string => status.replaceAll("_", " ");

/**
 * What the status menu offers for a task in this status: an open task can be cancelled; any
 * task not completed can be marked done (a failed or cancelled one too); the workspace can
 * be reset whatever the status (the API refuses it while a run holds it, and says so).
 */
export function taskActions(status: string): { cancel: boolean; done: boolean; reset: boolean } {
  return { cancel: !CLOSED_TASK_STATUSES.has(status), done: status !== "completed", reset: true };
}
