import { and, eq, isNull, sql } from "drizzle-orm";
import type { TaskSettings } from "../tasks/settings";
import type { AnyDatabase } from "./organisations";
import { taskMessages, taskRuns, tasks } from "./schema";
import type { KeysetPage, TaskMessageRow, TaskRunRow } from "./tasks";

/** A task's messages and runs (TASK-002, TASK-019), and the volumes the hourly sweep deletes (TASK-037). */

/** Queues a message for the task's agent; delivered by a run at a turn boundary. */
export async function insertTaskMessage(db: AnyDatabase, taskId: string, content: string): Promise<TaskMessageRow> {
  const [row] = await db.insert(taskMessages).values({ taskId, content }).returning();
  return row!;
}

/** A page of the task's messages, newest first. */
export async function listTaskMessages(db: AnyDatabase, taskId: string, page: KeysetPage): Promise<TaskMessageRow[]> {
  return db
    .select()
    .from(taskMessages)
    .where(and(eq(taskMessages.taskId, taskId), page.where(taskMessages.createdAt, taskMessages.id)))
    .orderBy(...page.order(taskMessages.createdAt, taskMessages.id))
    .limit(page.limit + 1);
}

/** A page of the task's runs, newest first. */
export async function listTaskRuns(db: AnyDatabase, taskId: string, page: KeysetPage): Promise<TaskRunRow[]> {
  return db
    .select()
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), page.where(taskRuns.createdAt, taskRuns.id)))
    .orderBy(...page.order(taskRuns.createdAt, taskRuns.id))
    .limit(page.limit + 1);
}

/** What a task's page shows of its runs: how many, the active one and the latest. */
export interface TaskRunsSummary {
  total: number;
  active: TaskRunRow | null;
  latest: TaskRunRow | null;
}

export async function taskRunsSummary(db: AnyDatabase, taskId: string): Promise<TaskRunsSummary> {
  const [[count], [latest], [active]] = await Promise.all([
    db.select({ total: sql<number>`count(*)::int` }).from(taskRuns).where(eq(taskRuns.taskId, taskId)),
    db.select().from(taskRuns).where(eq(taskRuns.taskId, taskId)).orderBy(sql`${taskRuns.createdAt} desc, ${taskRuns.id} desc`).limit(1),
    db
      .select()
      .from(taskRuns)
      .where(and(eq(taskRuns.taskId, taskId), isNull(taskRuns.outcome)))
      .limit(1),
  ]);
  return { total: count?.total ?? 0, active: active ?? null, latest: latest ?? null };
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
