import { and, eq, getTableColumns, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { keyPrefix } from "../tasks/key";
import type { TaskStatus } from "../tasks/outcome";
import type { AnyDatabase, Database } from "./client";
import { guildRepositories, taskMessages, taskRuns, tasks } from "./schema";
import { spendOfTaskRow } from "./task-budget";

/**
 * The tasks as the API files and reads them (TASK-001..008, TASK-019): filing a task with its
 * number, reading and listing tasks, their messages and runs, and a person's status moves.
 * Statuses move only through `moveTask` here (and the queue's claims, task-queue.ts): the
 * update says which statuses it moves from, so two writers racing (a person's cancel, a
 * run's end, the queue's start) never both win.
 */

export type TaskRow = typeof tasks.$inferSelect;
export type TaskRunRow = typeof taskRuns.$inferSelect;
export type TaskMessageRow = typeof taskMessages.$inferSelect;
/** A task as the API answers it: its row and what all its runs spent (a numeric, as text). */
export type TaskView = TaskRow & { spendUsd: string };

/** The task's columns and its spend, for a select from `tasks`. */
const taskView = () => ({ ...getTableColumns(tasks), spendUsd: spendOfTaskRow() });

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
  /** The issue that filed it (a label or an @-mention), one task per issue of the repository. */
  issueNumber?: number | null;
  issueUrl?: string | null;
  /** The task's budget in USD (issue 33); none when absent. */
  maxCostUsd?: number | null;
}

/**
 * Files a task under the repository's next number (OP-TASK-11). The counter's increment is
 * a data-modifying CTE of the insert itself: one statement, so concurrent filings take
 * distinct numbers and a failed insert takes none. Null when the repository is not the guild's.
 * A second task for the same issue (tasks_repository_issue_unique) throws a unique violation.
 *
 * @example await createTask(db, { ...ids, fullName: "acme/web-app", title: "Fix it", description: "", baseBranch: "main", allowForcePush: false })
 */
export async function createTask(db: Database, task: NewTask): Promise<TaskView | null> {
  const prefix = `${keyPrefix(task.fullName)}-`;
  const inserted = await db.execute(sql`
    with counter as (
      update ${guildRepositories} set task_counter = task_counter + 1
      where id = ${task.repositoryId} and guild_id = ${task.guildId}
      returning task_counter
    )
    insert into ${tasks} (organisation_id, guild_id, agent_id, repository_id, number, key, title, description, base_branch, allow_force_push,
      issue_number, issue_url, max_cost_usd)
    select ${task.organisationId}, ${task.guildId}, ${task.agentId}, ${task.repositoryId}, counter.task_counter,
      ${prefix} || counter.task_counter, ${task.title}, ${task.description}, ${task.baseBranch}, ${task.allowForcePush},
      ${task.issueNumber ?? null}::integer, ${task.issueUrl ?? null}::text, ${task.maxCostUsd == null ? null : task.maxCostUsd.toFixed(6)}::numeric
    from counter
    returning id`);
  const id = inserted.rows[0]?.id;
  return typeof id === "string" ? findTask(db, task.organisationId, id) : null;
}

/** The organisation's task with this id and its spend, or null (another organisation's is null too). */
export async function findTask(db: AnyDatabase, organisationId: string, id: string): Promise<TaskView | null> {
  const [row] = await db
    .select(taskView())
    .from(tasks)
    .where(and(eq(tasks.id, id), eq(tasks.organisationId, organisationId)))
    .limit(1);
  return row ?? null;
}

/**
 * A page of the guild's tasks, newest first, of the given statuses (all when empty): ordinary
 * tasks and best-of-N parents; a parent's attempts are read through it.
 */
export async function listTasks(db: AnyDatabase, guildId: string, statuses: readonly TaskStatus[], page: KeysetPage): Promise<TaskView[]> {
  return db
    .select(taskView())
    .from(tasks)
    .where(
      and(
        eq(tasks.guildId, guildId),
        isNull(tasks.parentTaskId),
        statuses.length ? inArray(tasks.status, [...statuses]) : undefined,
        page.where(tasks.createdAt, tasks.id),
      ),
    )
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
