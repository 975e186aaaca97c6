import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { DueTask, TaskStatus } from "../tasks/outcome";
import type { TaskSettings } from "../tasks/settings";
import type { AnyDatabase } from "./client";
import { taskRuns, tasks } from "./schema";
import type { TaskRow } from "./task-rows";

/**
 * What the organisation's task queue reads and claims (TASK-006..008, TASK-037): the tasks
 * that are or will become due, those that hold a run slot, the claim that marks one running
 * (and its undoing when the task object refuses), and the volumes the hourly sweep deletes.
 */

/**
 * Marks a due task running for the queue (TASK-006, TASK-008): only from queued or
 * rate_limited, only once its resume time has passed at `now`, and never while it has an
 * active run. Null when any of those does not hold. A best-of-N parent (`attempts` > 1) never
 * runs itself: its attempts do.
 */
export async function claimForRun(db: AnyDatabase, id: string, now: Date): Promise<TaskRow | null> {
  const [row] = await db
    .update(tasks)
    .set({ status: "running", updatedAt: sql`now()` })
    .where(
      and(
        eq(tasks.id, id),
        eq(tasks.attempts, 1),
        inArray(tasks.status, ["queued", "rate_limited"]),
        sql`(${tasks.resumeAt} is null or ${tasks.resumeAt} <= ${now})`,
        sql`not exists (select 1 from ${taskRuns} where ${taskRuns.taskId} = ${tasks.id} and ${taskRuns.outcome} is null)`,
      ),
    )
    .returning();
  return row ?? null;
}

/**
 * A start the task object refused: the task goes back to queued, due again at `resumeAt`,
 * unless a run did become active meanwhile (then running is its true status).
 */
export async function unclaim(db: AnyDatabase, id: string, resumeAt: Date): Promise<boolean> {
  const rows = await db
    .update(tasks)
    .set({ status: "queued", resumeAt, updatedAt: sql`now()` })
    .where(
      and(
        eq(tasks.id, id),
        eq(tasks.status, "running"),
        sql`not exists (select 1 from ${taskRuns} where ${taskRuns.taskId} = ${tasks.id} and ${taskRuns.outcome} is null)`,
      ),
    )
    .returning({ id: tasks.id });
  return rows.length > 0;
}

/**
 * The organisation's tasks that are or will become due (queued or rate_limited), as the
 * planner reads them; never a best-of-N parent (its attempts are tasks of their own).
 */
export async function dueCandidates(db: AnyDatabase, organisationId: string): Promise<DueTask[]> {
  const rows = await db
    .select({ id: tasks.id, status: tasks.status, queuedAt: tasks.queuedAt, resumeAt: tasks.resumeAt, createdAt: tasks.createdAt })
    .from(tasks)
    .where(and(eq(tasks.organisationId, organisationId), eq(tasks.attempts, 1), inArray(tasks.status, ["queued", "rate_limited"])));
  return rows.map((r) => ({
    id: r.id,
    status: r.status as TaskStatus,
    queuedAt: r.queuedAt.getTime(),
    resumeAt: r.resumeAt?.getTime() ?? null,
    createdAt: r.createdAt.getTime(),
  }));
}

/**
 * The organisation's tasks that hold a run slot (TASK-007): those with an active task run,
 * and those the queue marked running whose task object has not opened the run yet. A
 * best-of-N parent is `running` while its attempts run but holds no slot: each attempt does.
 */
export async function activeTaskIds(db: AnyDatabase, organisationId: string): Promise<Set<string>> {
  const rows = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        eq(tasks.organisationId, organisationId),
        sql`((${tasks.status} = 'running' and ${tasks.attempts} = 1) or exists (select 1 from ${taskRuns} where ${taskRuns.taskId} = ${tasks.id} and ${taskRuns.outcome} is null))`,
      ),
    );
  return new Set(rows.map((r) => r.id));
}

/** How many task runs of the organisation are active (outcome not yet written). */
export async function activeRunCount(db: AnyDatabase, organisationId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(taskRuns)
    .innerJoin(tasks, eq(tasks.id, taskRuns.taskId))
    .where(and(eq(tasks.organisationId, organisationId), isNull(taskRuns.outcome)));
  return row?.count ?? 0;
}

/** A task whose volume the sweep deletes. */
export interface StaleVolume {
  taskId: string;
  repositoryId: string;
  key: string;
}

/**
 * The organisation's tasks whose volume expired (core/tasks/transitions.ts volumeExpiresAt)
 * after `since` and no later than `now`: each expiry is swept once, by the first sweep past
 * it, so the hourly sweep reads only what came due since the last one. A task with an active
 * run is left alone (its run saves the volume again when it ends, and its expiry moves on).
 */
export async function staleVolumes(db: AnyDatabase, organisationId: string, settings: TaskSettings, since: Date, now: Date): Promise<StaleVolume[]> {
  const retain = settings["volumes.retainAfterCloseSeconds"];
  const idle = settings["volumes.idleTtlSeconds"];
  const expiry = sql`least(${tasks.closedAt} + ${retain} * interval '1 second', ${tasks.lastRunEndedAt} + ${idle} * interval '1 second')`;
  return db
    .select({ taskId: tasks.id, repositoryId: tasks.repositoryId, key: tasks.key })
    .from(tasks)
    .where(
      and(
        eq(tasks.organisationId, organisationId),
        sql`${expiry} > ${since}`,
        sql`${expiry} <= ${now}`,
        sql`not exists (select 1 from ${taskRuns} where ${taskRuns.taskId} = ${tasks.id} and ${taskRuns.outcome} is null)`,
      ),
    );
}
