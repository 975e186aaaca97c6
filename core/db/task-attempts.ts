/**
 * Best of N in the database: a parent task (`attempts` = N, never run itself) filed with its N
 * attempts in one statement, the attempts read back with what their cards show, the parent's
 * settling claimed by one writer, and where a message to the parent goes once a winner is
 * picked. The winner is the attempt that carries the parent's pull request: its later runs
 * work on that pull request's branch, as any task with a pull request does.
 */
import { and, asc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { attemptTitle, type Diffstat } from "../tasks/attempts";
import { keyPrefix } from "../tasks/key";
import { CLOSED_STATUSES, type TaskStatus } from "../tasks/outcome";
import type { AnyDatabase, Database } from "./client";
import { guildRepositories, messages, taskRuns, tasks } from "./schema";
import { findTask, type NewTask, type TaskRow, type TaskView } from "./task-rows";

/**
 * Files the parent (status `running`: its attempts run) and `attempts` queued attempts keyed
 * `<KEY>/a<i>`, each under the repository's next number like any task. ONE statement: the
 * counter moves by N + 1 and every row is written together, or none is.
 *
 * @example await createTaskWithAttempts(db, { ...ids, fullName: "acme/app", title: "Fix it", ... }, 3) // APP-7, APP-7/a1..a3
 */
export async function createTaskWithAttempts(db: Database, task: NewTask, attempts: number): Promise<TaskView | null> {
  const prefix = `${keyPrefix(task.fullName)}-`;
  // Each attempt may spend the budget: they are alternatives, not parts of one run.
  const budget = task.maxCostUsd == null ? null : task.maxCostUsd.toFixed(6);
  const titles = JSON.stringify(Array.from({ length: attempts }, (_, i) => attemptTitle(task.title, i + 1, attempts)));
  const inserted = await db.execute(sql`
    with counter as (
      update ${guildRepositories} set task_counter = task_counter + ${attempts + 1}
      where id = ${task.repositoryId} and guild_id = ${task.guildId}
      returning task_counter - ${attempts} as number
    ),
    parent as (
      insert into ${tasks} (organisation_id, guild_id, agent_id, repository_id, number, key, title, description, base_branch, allow_force_push, status, attempts, max_cost_usd)
      select ${task.organisationId}, ${task.guildId}, ${task.agentId}, ${task.repositoryId}, counter.number,
        ${prefix} || counter.number, ${task.title}, ${task.description}, ${task.baseBranch}, ${task.allowForcePush}, 'running', ${attempts}, ${budget}::numeric
      from counter
      returning id, number, key
    )
    insert into ${tasks} (organisation_id, guild_id, agent_id, repository_id, number, key, title, description, base_branch, allow_force_push, parent_task_id, attempt, max_cost_usd)
    select ${task.organisationId}, ${task.guildId}, ${task.agentId}, ${task.repositoryId}, parent.number + t.i,
      parent.key || '/a' || t.i, t.title, ${task.description}, ${task.baseBranch}, ${task.allowForcePush}, parent.id, t.i, ${budget}::numeric
    from parent, jsonb_array_elements_text(${titles}::jsonb) with ordinality as t(title, i)
    returning parent_task_id`);
  const id = inserted.rows[0]?.parent_task_id;
  return typeof id === "string" ? findTask(db, task.organisationId, id) : null;
}

/** The parent's attempts, by attempt number. */
export async function listAttempts(db: AnyDatabase, parentId: string): Promise<TaskRow[]> {
  return db.select().from(tasks).where(eq(tasks.parentTaskId, parentId)).orderBy(asc(tasks.attempt));
}

/** The winner: the attempt that carries the parent's pull request; null before (or without) one. */
export async function winnerOf(db: AnyDatabase, parentId: string): Promise<TaskRow | null> {
  const [row] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.parentTaskId, parentId), isNotNull(tasks.pullRequestNumber)))
    .limit(1);
  return row ?? null;
}

/**
 * Where a message to `task` goes: a best-of-N parent's winner (a review on the parent's pull
 * request reaches the attempt whose branch it is); the task itself otherwise. Null for a parent
 * without a winner (its attempts still run, or none passed): no run of it would ever read it.
 */
export async function messageTarget(db: AnyDatabase, task: TaskRow): Promise<TaskRow | null> {
  if (task.attempts <= 1) return task;
  return winnerOf(db, task.id);
}

/** What an attempt's card shows besides its row: its spend and its latest run's report. */
export interface AttemptExtras {
  spendUsd: number;
  report: Record<string, unknown> | null;
}

/** Each attempt's spend (its runs' model cost) and its latest run's report. */
export async function attemptExtras(db: AnyDatabase, ids: readonly string[]): Promise<Map<string, AttemptExtras>> {
  const extras = new Map<string, AttemptExtras>(ids.map((id) => [id, { spendUsd: 0, report: null }]));
  if (!ids.length) return extras;
  const [spend, reports] = await Promise.all([
    db
      .select({ taskId: taskRuns.taskId, cost: sql<string>`coalesce(sum(${messages.costUsd}), 0)::text` })
      .from(taskRuns)
      .innerJoin(messages, eq(messages.runId, taskRuns.runId))
      .where(inArray(taskRuns.taskId, [...ids]))
      .groupBy(taskRuns.taskId),
    db
      .selectDistinctOn([taskRuns.taskId], { taskId: taskRuns.taskId, report: taskRuns.report })
      .from(taskRuns)
      .where(inArray(taskRuns.taskId, [...ids]))
      .orderBy(taskRuns.taskId, sql`${taskRuns.createdAt} desc`, sql`${taskRuns.id} desc`),
  ]);
  for (const row of spend) extras.get(row.taskId)!.spendUsd = Number(row.cost);
  for (const row of reports) extras.get(row.taskId)!.report = row.report as Record<string, unknown>;
  return extras;
}

/** The attempt's diffstat against its base, kept on its latest run's report (its card and the picking read it). */
export async function recordDiffstat(db: AnyDatabase, taskId: string, diff: Diffstat | null): Promise<void> {
  await db.execute(sql`
    update ${taskRuns} set report = report || jsonb_build_object('diffstat', ${diff === null ? null : JSON.stringify(diff)}::jsonb)
    where id = (select id from ${taskRuns} where task_id = ${taskId} order by created_at desc, id desc limit 1)`);
}

/** The diffstat a report holds, or null. */
export function diffstatOf(report: Record<string, unknown> | null): Diffstat | null {
  const diff = report?.diffstat as { additions?: unknown; deletions?: unknown } | null | undefined;
  return diff && typeof diff.additions === "number" && typeof diff.deletions === "number" ? { additions: diff.additions, deletions: diff.deletions } : null;
}

/**
 * The parent's settling, claimed: it moves from `running` to `status` only if no other
 * evaluation moved it first, so two attempts ending at the same instant open one pull request.
 */
export async function claimSettlement(db: AnyDatabase, parentId: string, status: TaskStatus): Promise<TaskRow | null> {
  const [row] = await db
    .update(tasks)
    .set({ status, updatedAt: sql`now()` })
    .where(and(eq(tasks.id, parentId), eq(tasks.status, "running"), sql`${tasks.attempts} > 1`))
    .returning();
  return row ?? null;
}

/** The winner carries the parent's pull request (its next runs work on it). */
export async function setWinner(db: Database, parent: TaskRow, winnerId: string, pull: { number: number; url: string }): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(tasks).set({ pullRequestNumber: pull.number, pullRequestUrl: pull.url, updatedAt: sql`now()` }).where(eq(tasks.id, parent.id));
    await tx
      .update(tasks)
      .set({ pullRequestNumber: pull.number, pullRequestUrl: pull.url, updatedAt: sql`now()` })
      .where(and(eq(tasks.id, winnerId), eq(tasks.parentTaskId, parent.id)));
  });
}

/** The parent's attempts still open: a parent's cancel or done closes them too. */
export async function openAttempts(db: AnyDatabase, parentId: string): Promise<TaskRow[]> {
  const rows = await listAttempts(db, parentId);
  return rows.filter((row) => !CLOSED_STATUSES.has(row.status as TaskStatus));
}
