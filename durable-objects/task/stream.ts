/**
 * The task's Server-Sent Events (TASK-004): `task.status` {status}, `task.run_started`
 * {run_id}, `task.run_ended` {run_id, outcome}, `task.pull_request` {number, url},
 * `task.checks` (the branch head's checks), and the rows of the task's latest run as
 * `message` events. Rows are replayed from Postgres on connect, as a run's events are: the
 * stream's sequence is the run's ordinal times RUN_SPAN plus the row's seq, so a client's
 * Last-Event-ID resumes across the task's runs and a new run's rows never look replayed.
 */
import { sql } from "drizzle-orm";
import type { Env } from "../../bindings/env";
import { loadRows, toWireRow, type WireRow } from "../../core/db/transcript";
import type { TaskEventData } from "../../core/events/streams";
import type { TaskOutcome, TaskStatus } from "../../core/tasks/outcome";
import type { IdleConnection } from "../common/idle-connection";
import { hubLimits, SseHub } from "../common/sse-hub";

/** Rows one run may have before its stream sequence would run into the next run's. */
export const RUN_SPAN = 1_000_000;

export type TaskStreamRow = TaskEventData["message"];

export class TaskStream {
  private readonly hub: SseHub<TaskEventData>;
  /** The run whose rows go live, with its ordinal among the task's runs (1 = the first). */
  private live: { taskId: string; runId: string; ordinal: number } | null = null;

  constructor(
    env: Env,
    private readonly database: () => IdleConnection,
  ) {
    this.hub = new SseHub<TaskEventData>(
      (taskId, after, limit) => this.replay(taskId, after, limit),
      hubLimits(env.MAX_RUN_SUBSCRIBERS, env.SSE_QUEUE_BYTES, 200),
    );
  }

  /** Opens a stream: the latest run's rows after `afterSeq`, then `status` {status, run_id}, then live events. */
  subscribe(taskId: string, afterSeq: number, status: TaskEventData["status"]): Response {
    return this.hub.subscribe(taskId, afterSeq, () => status);
  }

  runStarted(taskId: string, runId: string, ordinal: number): void {
    this.live = { taskId, runId, ordinal };
    this.hub.publish(taskId, "task.run_started", { run_id: runId });
  }

  /** A committed row of a run: live when it is the task's current run. */
  row(runId: string, row: WireRow): void {
    const live = this.live;
    if (!live || live.runId !== runId) return;
    this.hub.publishRow(live.taskId, { ...row, seq: live.ordinal * RUN_SPAN + row.seq, run_id: runId, row_seq: row.seq });
  }

  runEnded(taskId: string, runId: string, outcome: TaskOutcome): void {
    this.hub.publish(taskId, "task.run_ended", { run_id: runId, outcome });
  }

  status(taskId: string, status: TaskStatus): void {
    this.hub.publish(taskId, "task.status", { status });
  }

  /** The task's draft pull request was opened (TASK-018). */
  pullRequest(taskId: string, pullRequest: { number: number; url: string }): void {
    this.hub.publish(taskId, "task.pull_request", pullRequest);
  }

  /** The checks of the task's branch head were read again (ISSUE-33). */
  checks(taskId: string, checks: TaskEventData["task.checks"]): void {
    this.hub.publish(taskId, "task.checks", checks);
  }

  subscribers(taskId?: string): number {
    return this.hub.subscribers(taskId);
  }

  /** The latest run's rows after the stream position `after`. */
  private replay(taskId: string, after: number, limit: number): Promise<TaskStreamRow[]> {
    return this.database().use(async (db) => {
      const latest = await db.execute<{ run_id: string; ordinal: number }>(sql`
        select t.run_id::text as run_id,
               (select count(*)::int from task_runs o where o.task_id = t.task_id and o.created_at <= t.created_at) as ordinal
        from task_runs t where t.task_id = ${taskId}::uuid order by t.created_at desc limit 1`);
      const run = latest.rows[0];
      if (!run) return [];
      const base = run.ordinal * RUN_SPAN;
      const rows = await loadRows(db, run.run_id, Math.max(-1, after - base), limit);
      return rows.map((r) => {
        const row = toWireRow(r);
        return { ...row, seq: base + row.seq, run_id: run.run_id, row_seq: row.seq };
      });
    });
  }
}

/** A run's ordinal among its task's runs (1 = the first), for the stream's sequence. */
export async function runOrdinal(db: ReturnType<IdleConnection["db"]>, taskId: string, runId: string): Promise<number> {
  const result = await db.execute<{ ordinal: number }>(sql`
    select count(*)::int as ordinal from task_runs o
    where o.task_id = ${taskId}::uuid and o.created_at <= (select created_at from task_runs where run_id = ${runId}::uuid)`);
  return result.rows[0]?.ordinal ?? 1;
}
