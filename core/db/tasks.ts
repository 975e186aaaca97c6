import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { keyPrefix } from "../tasks/key";
import type { DueTask, TaskStatus } from "../tasks/outcome";
import { type TaskSettings, taskSettings } from "../tasks/settings";
import type { Database } from "./client";
import type { AnyDatabase } from "./organisations";
import { guildRepositories, organisations, type taskMessages, taskRuns, tasks } from "./schema";

/**
 * The tasks' queries (TASK-001..008): filing a task with its number, reading and listing
 * tasks, their messages and runs, conditional status moves, and what the organisation's
 * queue plans from. Statuses move only through `moveTask`: the update says which statuses
 * it moves from, so two writers racing (a person's cancel, a run's end, the queue's start)
 * never both win.
 */

export type TaskRow = typeof tasks.$inferSelect;
export type TaskRunRow = typeof taskRuns.$inferSelect;
export type TaskMessageRow = typeof taskMessages.$inferSelect;

/** A keyset page as workers/http/pagination.ts `listPage` gives it: newest first on (created_at, id). */
export interface KeysetPage {
  limit: number;
  where(createdAt: PgColumn, id: PgColumn): SQL | undefined;
  order(createdAt: PgColumn, id: PgColumn): SQL[];
}

export interface NewTask {
  organisationId: string;
  guildId: string;
  agentId: string;
  repositoryId: string;
  /** The repository's full name, whose name part gives the key's prefix. */
  fullName: string;
  title: string;
  description: string;
  baseBranch: string;
  allowForcePush: boolean;
}

/**
 * Files a task under the repository's next number (OP-TASK-11). The counter's increment is
 * a data-modifying CTE of the insert itself: one statement, so concurrent filings take
 * distinct numbers and a failed insert takes none. Null when the repository is not the guild's.
 *
 * @example await createTask(db, { ...ids, fullName: "acme/web-app", title: "Fix it", description: "", baseBranch: "main", allowForcePush: false })
 */
export async function createTask(db: Database, task: NewTask): Promise<TaskRow | null> {
  const prefix = `${keyPrefix(task.fullName)}-`;
  const inserted = await db.execute(sql`
    with counter as (
      update ${guildRepositories} set task_counter = task_counter + 1
      where id = ${task.repositoryId} and guild_id = ${task.guildId}
      returning task_counter
    )
    insert into ${tasks} (organisation_id, guild_id, agent_id, repository_id, number, key, title, description, base_branch, allow_force_push)
    select ${task.organisationId}, ${task.guildId}, ${task.agentId}, ${task.repositoryId}, counter.task_counter,
      ${prefix} || counter.task_counter, ${task.title}, ${task.description}, ${task.baseBranch}, ${task.allowForcePush}
    from counter
    returning id`);
  const id = inserted.rows[0]?.id;
  return typeof id === "string" ? findTask(db, task.organisationId, id) : null;
}

/** The organisation's task with this id, or null (another organisation's is null too). */
export async function findTask(db: AnyDatabase, organisationId: string, id: string): Promise<TaskRow | null> {
  const [row] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, id), eq(tasks.organisationId, organisationId)))
    .limit(1);
  return row ?? null;
}

/** A page of the guild's tasks, newest first, of the given statuses (all when empty). */
export async function listTasks(db: AnyDatabase, guildId: string, statuses: readonly TaskStatus[], page: KeysetPage): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.guildId, guildId), statuses.length ? inArray(tasks.status, [...statuses]) : undefined, page.where(tasks.createdAt, tasks.id)))
    .orderBy(...page.order(tasks.createdAt, tasks.id))
    .limit(page.limit + 1);
}

/** What a status move sets besides the status; `now` stands for the database's clock. */
export interface TaskChange {
  resumeAt?: Date | null;
  queuedAt?: Date | "now";
  closedAt?: Date | "now" | null;
  autoResumes?: number;
}

const at = (value: Date | "now") => (value === "now" ? sql`now()` : value);

/**
 * Moves the task to `status` if it is in one of `from` now; the moved row, or null when it
 * was in another status (someone else moved it first).
 *
 * @example await moveTask(db, id, ["queued", "rate_limited"], "running")
 */
export async function moveTask(db: AnyDatabase, id: string, from: readonly TaskStatus[], status: TaskStatus, change: TaskChange = {}): Promise<TaskRow | null> {
  const [row] = await db
    .update(tasks)
    .set({
      status,
      ...(change.resumeAt !== undefined ? { resumeAt: change.resumeAt } : {}),
      ...(change.queuedAt !== undefined ? { queuedAt: at(change.queuedAt) } : {}),
      ...(change.closedAt !== undefined ? { closedAt: change.closedAt === null ? null : at(change.closedAt) } : {}),
      ...(change.autoResumes !== undefined ? { autoResumes: change.autoResumes } : {}),
      updatedAt: sql`now()`,
    })
    .where(and(eq(tasks.id, id), inArray(tasks.status, [...from])))
    .returning();
  return row ?? null;
}

/**
 * Marks a due task running for the queue (TASK-006, TASK-008): only from queued or
 * rate_limited, only once its resume time has passed at `now`, and never while it has an
 * active run. Null when any of those does not hold.
 */
export async function claimForRun(db: AnyDatabase, id: string, now: Date): Promise<TaskRow | null> {
  const [row] = await db
    .update(tasks)
    .set({ status: "running", updatedAt: sql`now()` })
    .where(
      and(
        eq(tasks.id, id),
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

/** The organisation's tasks that are or will become due (queued or rate_limited), as the planner reads them. */
export async function dueCandidates(db: AnyDatabase, organisationId: string): Promise<DueTask[]> {
  const rows = await db
    .select({ id: tasks.id, status: tasks.status, queuedAt: tasks.queuedAt, resumeAt: tasks.resumeAt, createdAt: tasks.createdAt })
    .from(tasks)
    .where(and(eq(tasks.organisationId, organisationId), inArray(tasks.status, ["queued", "rate_limited"])));
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
 * and those the queue marked running whose task object has not opened the run yet.
 */
export async function activeTaskIds(db: AnyDatabase, organisationId: string): Promise<Set<string>> {
  const rows = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        eq(tasks.organisationId, organisationId),
        sql`(${tasks.status} = 'running' or exists (select 1 from ${taskRuns} where ${taskRuns.taskId} = ${tasks.id} and ${taskRuns.outcome} is null))`,
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

/** The organisation's effective task settings (defaults for keys it has not set). */
export async function organisationTaskSettings(db: AnyDatabase, organisationId: string): Promise<TaskSettings> {
  const [row] = await db.select({ settings: organisations.taskSettings }).from(organisations).where(eq(organisations.id, organisationId));
  return taskSettings(row?.settings);
}

/** Sets the given keys of the organisation's task settings, keeping the others; the effective settings after. */
export async function patchTaskSettings(db: AnyDatabase, organisationId: string, patch: Partial<TaskSettings>): Promise<TaskSettings> {
  const [row] = await db
    .update(organisations)
    .set({ taskSettings: sql`${organisations.taskSettings} || ${JSON.stringify(patch)}::jsonb`, updatedAt: sql`now()` })
    .where(eq(organisations.id, organisationId))
    .returning({ settings: organisations.taskSettings });
  return taskSettings(row?.settings);
}
