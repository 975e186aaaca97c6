/**
 * What a task run reads when it starts (TASK-009, TASK-032, TASK-033), in one statement:
 * how the task's last run ended (a hand-off's text is where the next run goes on from), and
 * the messages no run has delivered yet, which the new run's first prompt carries, and the
 * harness session the task's runs last reported (TASK-034: the next run resumes it).
 */
import { sql } from "drizzle-orm";
import type { Database } from "./client";

export interface TaskRunStart {
  /** The task's last ended run, or null for its first run. */
  last: { runId: string; outcome: string; report: Record<string, unknown>; metadata: Record<string, unknown> } | null;
  /** Messages for the task no run has delivered yet, oldest first. */
  queued: Array<{ id: string; content: string }>;
  /** The harness session of the latest run that reported one (a lost run reports none), or null. */
  harnessSession: string | null;
}

export async function readTaskRunStart(db: Database, taskId: string): Promise<TaskRunStart> {
  const result = await db.execute<{
    last: { run_id: string; outcome: string; report: unknown; metadata: unknown } | null;
    queued: TaskRunStart["queued"];
    harness_session: string | null;
  }>(sql`
    select (select to_jsonb(x) from (
              select tr.run_id, tr.outcome, tr.report, r.metadata from task_runs tr join runs r on r.id = tr.run_id
              where tr.task_id = ${taskId}::uuid and tr.outcome is not null order by tr.created_at desc limit 1) x) as last,
           coalesce((select jsonb_agg(jsonb_build_object('id', m.id, 'content', m.content) order by m.created_at, m.id)
              from task_messages m where m.task_id = ${taskId}::uuid and m.delivered_at is null), '[]'::jsonb) as queued,
           (select tr.report->'harness'->>'session_id' from task_runs tr
              where tr.task_id = ${taskId}::uuid and tr.outcome is not null and tr.report->'harness'->>'session_id' is not null
              order by tr.created_at desc limit 1) as harness_session`);
  const row = result.rows[0];
  const last = row?.last;
  return {
    last: last
      ? {
          runId: last.run_id,
          outcome: last.outcome,
          report: (last.report ?? {}) as Record<string, unknown>,
          metadata: (last.metadata ?? {}) as Record<string, unknown>,
        }
      : null,
    queued: row?.queued ?? [],
    harnessSession: row?.harness_session ?? null,
  };
}

/**
 * The update that marks messages delivered to a run, as a data-modifying CTE named `d` of
 * the statement that writes the row carrying them; `guard` (a condition on the statement's
 * other CTEs) holds it back when that row is not written.
 */
export function markDelivered(runId: string, messageIds: readonly string[], deliveredAt: Date, guard = sql`true`) {
  return sql`d as (
    update task_messages set delivered_at = ${deliveredAt.toISOString()}::timestamptz, delivered_run_id = ${runId}::uuid
    where id = any(${`{${messageIds.join(",")}}`}::uuid[]) and delivered_at is null and ${guard} returning 1
  )`;
}
