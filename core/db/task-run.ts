/**
 * What a task's object reads and writes of its runs (TASK-002..004, TASK-019, TASK-022..029):
 * the task as a run needs it, the active task run, the messages it delivers, the run's
 * ending and the task's status after it. The task object is the only writer of its runs.
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { type RunEnding, statusAfterRun, type TaskOutcome, type TaskStatus } from "../tasks/outcome";
import { type TaskSettings, taskSettings } from "../tasks/settings";
import type { Database } from "./client";
import { agents, githubConnections, guildRepositories, guilds, messages, organisations, runs, taskMessages, taskRuns, tasks } from "./schema";
import { markDelivered } from "./task-run-start";
import { appendOpeningRow, type NewRow, type WireRow } from "./transcript";

export interface TaskForRun {
  id: string;
  organisationId: string;
  guildId: string;
  agentId: string;
  repositoryId: string;
  key: string;
  title: string;
  description: string;
  baseBranch: string;
  status: TaskStatus;
  allowForcePush: boolean;
  pullRequestNumber: number | null;
  pullRequestUrl: string | null;
  /** Best of N: the parent of an attempt (which opens no pull request of its own); null for any other task. */
  parentTaskId: string | null;
  /** The issue the task was filed from: its pull request says `Closes #<n>`. */
  issueNumber: number | null;
  /** The repository's `owner/name`. */
  fullName: string;
  /** The GitHub installation the repository's tokens come from; null for a public or disconnected one. */
  installationId: number | null;
  /** Who the agent's commits are by (REPO-005): its name, and the guild's author email or its own address. */
  identity: { name: string; email: string };
  settings: TaskSettings;
}

/** The task with its repository and its organisation's task settings, or null when it is gone. */
export async function readTaskForRun(db: Database, taskId: string): Promise<TaskForRun | null> {
  const [row] = await db
    .select({
      task: tasks,
      fullName: guildRepositories.fullName,
      installationId: githubConnections.installationId,
      disconnectedAt: githubConnections.disconnectedAt,
      settings: organisations.taskSettings,
      agentName: agents.name,
      authorEmail: guilds.gitAuthorEmail,
    })
    .from(tasks)
    .innerJoin(guildRepositories, eq(guildRepositories.id, tasks.repositoryId))
    .innerJoin(agents, eq(agents.id, tasks.agentId))
    .innerJoin(guilds, eq(guilds.id, tasks.guildId))
    .innerJoin(organisations, eq(organisations.id, tasks.organisationId))
    .leftJoin(githubConnections, eq(githubConnections.id, guildRepositories.connectionId))
    .where(eq(tasks.id, taskId))
    .limit(1);
  if (!row) return null;
  const { task } = row;
  return {
    id: task.id,
    organisationId: task.organisationId,
    guildId: task.guildId,
    agentId: task.agentId,
    repositoryId: task.repositoryId,
    key: task.key,
    title: task.title,
    description: task.description,
    baseBranch: task.baseBranch,
    status: task.status as TaskStatus,
    allowForcePush: task.allowForcePush,
    pullRequestNumber: task.pullRequestNumber,
    pullRequestUrl: task.pullRequestUrl,
    parentTaskId: task.parentTaskId,
    issueNumber: task.issueNumber,
    fullName: row.fullName,
    installationId: row.installationId !== null && row.disconnectedAt === null ? row.installationId : null,
    identity: { name: row.agentName, email: row.authorEmail || `${task.agentId}@agents.guilds.run` },
    settings: taskSettings(row.settings),
  };
}

export interface ActiveTaskRun {
  id: string;
  runId: string;
  createdAt: Date;
  connectedAt: Date | null;
}

/** The task's run without an outcome, or null (the partial unique index allows one). */
export async function activeTaskRun(db: Database, taskId: string): Promise<ActiveTaskRun | null> {
  const [row] = await db
    .select({ id: taskRuns.id, runId: taskRuns.runId, createdAt: taskRuns.createdAt, connectedAt: taskRuns.connectedAt })
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), isNull(taskRuns.outcome)))
    .limit(1);
  return row ?? null;
}

/**
 * The claim a task run's opening is written under (run/opening.ts): the task_runs row, which
 * the one-active index refuses while another run is active; then nothing of the run is written.
 */
export function taskRunClaim(taskId: string, taskRunId: string, runId: string) {
  return sql`insert into task_runs (id, task_id, run_id) values (${taskRunId}::uuid, ${taskId}::uuid, ${runId}::uuid) on conflict do nothing returning 1`;
}

/** The box answered and the workspace was prepared. */
export async function markConnected(db: Database, taskRunId: string, at: Date): Promise<void> {
  await db.update(taskRuns).set({ connectedAt: at }).where(eq(taskRuns.id, taskRunId));
}

/** How many rows of earlier runs a continuation summary reads at most (the newest). */
const SUMMARY_ROWS = 2_000;

/** The rows of the task's earlier runs, oldest first, for the continuation summary (TASK-033). */
export async function earlierTaskRows(db: Database, taskId: string, exceptRunId: string) {
  const rows = await db
    .select({ role: messages.role, payload: messages.payload, metadata: messages.metadata, runCreated: taskRuns.createdAt, seq: messages.seq })
    .from(messages)
    .innerJoin(taskRuns, eq(taskRuns.runId, messages.runId))
    .where(and(eq(taskRuns.taskId, taskId), sql`${messages.runId} <> ${exceptRunId}::uuid`, sql`${messages.role} in ('user', 'assistant')`))
    .orderBy(sql`${taskRuns.createdAt} desc`, sql`${messages.seq} desc`)
    .limit(SUMMARY_ROWS);
  return rows.reverse().map((r) => ({ role: r.role, payload: r.payload, metadata: r.metadata as Record<string, unknown> }));
}

/** Messages for the task no run has delivered yet, oldest first. */
export async function undeliveredMessages(db: Database, taskId: string): Promise<Array<{ id: string; content: string }>> {
  return db
    .select({ id: taskMessages.id, content: taskMessages.content })
    .from(taskMessages)
    .where(and(eq(taskMessages.taskId, taskId), isNull(taskMessages.deliveredAt)))
    .orderBy(asc(taskMessages.createdAt), asc(taskMessages.id));
}

/**
 * The messages delivered as the user row that opens the next turn (TASK-019), in ONE
 * statement: the row, the run's generation number and the messages' delivered_at commit
 * together, so a message is never delivered twice or lost between the two.
 */
export function deliverMessages(db: Database, row: NewRow & { generation: number }, messageIds: string[], deliveredAt: Date): Promise<WireRow> {
  return appendOpeningRow(db, row, { writes: markDelivered(row.runId, messageIds, deliveredAt) });
}

/** The run's usage from its assistant rows (the run report, TASK-022). */
export async function runUsage(db: Database, runId: string) {
  const [row] = await db
    .execute<{ input_tokens: string; output_tokens: string; cost_usd: string; calls: string }>(sql`
    select coalesce(sum((metadata->'usage'->>'prompt_tokens')::bigint), 0)::text as input_tokens,
           coalesce(sum((metadata->'usage'->>'completion_tokens')::bigint), 0)::text as output_tokens,
           coalesce(sum(cost_usd), 0)::text as cost_usd,
           count(*)::text as calls
    from messages where run_id = ${runId}::uuid and role = 'assistant'`)
    .then((r) => r.rows);
  return {
    input_tokens: Number(row?.input_tokens ?? 0),
    output_tokens: Number(row?.output_tokens ?? 0),
    cost_usd: Number(row?.cost_usd ?? 0),
    model_calls: Number(row?.calls ?? 0),
  };
}

export interface RunEnd {
  taskRunId: string;
  runId: string;
  outcome: TaskOutcome;
  endedAt: Date;
  workspace: Record<string, unknown>;
  report: Record<string, unknown>;
}

/**
 * Writes the run's ending: the task run's outcome (only if it had none, so an ending is
 * written once), and its transcript run completed. False when another ending came first.
 */
export async function finishTaskRun(db: Database, end: RunEnd): Promise<boolean> {
  const ended = await db
    .update(taskRuns)
    .set({ outcome: end.outcome, endedAt: end.endedAt, workspace: end.workspace, report: end.report })
    .where(and(eq(taskRuns.id, end.taskRunId), isNull(taskRuns.outcome)))
    .returning({ id: taskRuns.id });
  await db.update(runs).set({ status: "completed", completedAt: end.endedAt, updatedAt: end.endedAt }).where(eq(runs.id, end.runId));
  return ended.length > 0;
}

/**
 * The task's status after a run ended (TASK-024..032), from its status now (a person may have
 * cancelled it or marked it done meanwhile) and its undelivered messages, in one transaction
 * with the row locked. Returns what the task became.
 */
export async function settleTask(
  db: Database,
  taskId: string,
  ending: Pick<RunEnding, "outcome" | "resetAt">,
  now: Date,
): Promise<{ status: TaskStatus; resumeAt: number | null; autoResumes: number } | null> {
  return db.transaction(async (tx) => {
    const [task] = await tx
      .select({
        status: tasks.status,
        autoResumes: tasks.autoResumes,
        organisationId: tasks.organisationId,
        parentTaskId: tasks.parentTaskId,
        pullRequestNumber: tasks.pullRequestNumber,
      })
      .from(tasks)
      .where(eq(tasks.id, taskId))
      .for("update");
    if (!task) return null;
    const [org] = await tx.select({ settings: organisations.taskSettings }).from(organisations).where(eq(organisations.id, task.organisationId));
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(taskMessages)
      .where(and(eq(taskMessages.taskId, taskId), isNull(taskMessages.deliveredAt)));
    const settings = taskSettings(org?.settings);
    const after = statusAfterRun(
      {
        ...ending,
        current: task.status as TaskStatus,
        autoResumes: task.autoResumes,
        undelivered: count?.n ?? 0,
        // Best of N: an attempt that has not won (no pull request) closes when it completes.
        closesOnCompletion: task.parentTaskId !== null && task.pullRequestNumber === null,
      },
      settings["runs.maxAutoResumes"],
      now.getTime(),
      settings["runs.retryBaseSeconds"] * 1000,
    );
    const closing = (after.status === "failed" || after.status === "completed") && task.status !== after.status;
    await tx
      .update(tasks)
      .set({
        status: after.status,
        resumeAt: after.resumeAt === null ? null : new Date(after.resumeAt),
        autoResumes: after.autoResumes,
        lastRunEndedAt: now,
        updatedAt: now,
        // A run that handed off keeps the task's place in the queue: its next run goes on with the work at once.
        ...(after.status === "queued" && ending.outcome !== "handed_off" ? { queuedAt: now } : {}),
        ...(closing ? { closedAt: now } : {}),
      })
      .where(eq(tasks.id, taskId));
    return after;
  });
}

/** The draft pull request the run opened (TASK-018); kept only when the task had none. */
export async function setPullRequest(db: Database, taskId: string, number: number, url: string): Promise<void> {
  await db
    .update(tasks)
    .set({ pullRequestNumber: number, pullRequestUrl: url })
    .where(and(eq(tasks.id, taskId), isNull(tasks.pullRequestNumber)));
}

/** The task's status now (the events stream's first event). */
export async function taskStatus(db: Database, taskId: string): Promise<TaskStatus | null> {
  const [row] = await db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, taskId));
  return (row?.status as TaskStatus) ?? null;
}
