/**
 * A task's budget in the database (issue 33): what all its runs spent (the costs of their
 * assistant rows, as each run's report sums its own), setting `max_cost_usd`, and queueing a
 * task its budget stopped once the budget leaves room again.
 */
import { eq, type SQL, sql } from "drizzle-orm";
import { TASK_BUDGET, type TaskBudget } from "../tasks/budget";
import type { AnyDatabase, Database } from "./client";
import { tasks } from "./schema";

/**
 * The spend of the task whose id `taskId` is, over all its runs, as a numeric: one subquery.
 * Give it a spelled-out column (`"tasks"."id"`): inside the subquery a bare `id` would name
 * the task run's.
 */
export function taskSpend(taskId: SQL): SQL<string> {
  return sql<string>`(select coalesce(sum(m.cost_usd), 0) from task_runs tr join messages m on m.run_id = tr.run_id
    where tr.task_id = ${taskId} and m.role = 'assistant')`;
}

/** `taskSpend` of the row of `tasks` the statement reads. */
export const spendOfTaskRow = () => taskSpend(sql.raw(`"tasks"."id"`));

/** The task's budget and spend now, in one statement; null when the task is gone. */
export async function readTaskBudget(db: AnyDatabase, taskId: string): Promise<TaskBudget | null> {
  const [row] = await db.select({ limit: tasks.maxCostUsd, spent: spendOfTaskRow() }).from(tasks).where(eq(tasks.id, taskId)).limit(1);
  if (!row) return null;
  return { limitUsd: row.limit === null ? null : Number(row.limit), spentUsd: Number(row.spent) };
}

/** Sets the task's budget (null: none); false when the task is gone. */
export async function setTaskBudget(db: AnyDatabase, taskId: string, limitUsd: number | null): Promise<boolean> {
  const updated = await db
    .update(tasks)
    .set({ maxCostUsd: limitUsd === null ? null : limitUsd.toFixed(6), updatedAt: sql`now()` })
    .where(eq(tasks.id, taskId))
    .returning({ id: tasks.id });
  return updated.length > 0;
}

/** The statement's condition that the task its budget stopped (`limit_reached`, latest run's detail task.budget). */
function stoppedByBudget(taskId: string): SQL {
  return sql`status = 'limit_reached'
      and (select tr.report->>'detail' from task_runs tr where tr.task_id = ${taskId}::uuid
           order by tr.created_at desc, tr.id desc limit 1) = ${TASK_BUDGET}`;
}

/**
 * Whether the task waits on its budget: stopped by it and still at it. A message to such a
 * task waits for the raise that queues it (a run now could make no model call).
 */
export async function pausedByBudget(db: AnyDatabase, taskId: string): Promise<boolean> {
  const found = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(sql`id = ${taskId}::uuid and ${stoppedByBudget(taskId)} and max_cost_usd is not null and ${taskSpend(sql`${taskId}::uuid`)} >= max_cost_usd`)
    .limit(1);
  return found.length > 0;
}

/**
 * Queues the task again (queued_at now) when its budget stopped it and leaves room now: it is
 * `limit_reached`, its latest run ended with detail `task.budget`, and its spend is under its
 * budget (or it has none). One conditional statement, so a person's move or a run's end in
 * between is never overwritten. True when it moved.
 */
export async function requeueUnderBudget(db: Database, taskId: string): Promise<boolean> {
  const moved = await db.execute(sql`
    update tasks set status = 'queued', queued_at = now(), resume_at = null, updated_at = now()
    where id = ${taskId}::uuid and ${stoppedByBudget(taskId)}
      and (max_cost_usd is null or ${taskSpend(sql`${taskId}::uuid`)} < max_cost_usd)
    returning id`);
  return moved.rows.length > 0;
}
