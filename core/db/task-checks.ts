/**
 * What the tasks store of their branches' checks (ISSUE-33): the tasks on a branch of a guild
 * repository, the repository's first check seen, the summary on the task with what it decides
 * (core/tasks/checks.ts `checksDecision`) written under the task's row lock, so two readings
 * of one commit never both tell the agent, and the move to waiting for checks.
 */
import { and, desc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { CheckRun } from "../github/checks-api";
import { type ChecksDecision, type ChecksSummary, checksDecision, checksSummary, storedChecks } from "../tasks/checks";
import { CLOSED_STATUSES, type TaskStatus } from "../tasks/outcome";
import type { AnyDatabase, Database } from "./client";
import { githubConnections, guildRepositories, taskRuns, tasks } from "./schema";
import type { TaskRow } from "./task-rows";

/** A task with the repository its checks are read in. */
export interface TaskWithRepository {
  task: TaskRow;
  fullName: string;
  /** The installation the repository's tokens come from; null for a public or disconnected one. */
  installationId: number | null;
  checksSeenAt: Date | null;
}

function withRepository(db: AnyDatabase) {
  return db
    .select({
      task: tasks,
      fullName: guildRepositories.fullName,
      installationId: githubConnections.installationId,
      disconnectedAt: githubConnections.disconnectedAt,
      checksSeenAt: guildRepositories.checksSeenAt,
    })
    .from(tasks)
    .innerJoin(guildRepositories, eq(guildRepositories.id, tasks.repositoryId))
    .leftJoin(githubConnections, eq(githubConnections.id, guildRepositories.connectionId));
}

type Joined = Awaited<ReturnType<ReturnType<typeof withRepository>["where"]>>[number];

const toTaskWithRepository = (row: Joined): TaskWithRepository => ({
  task: row.task,
  fullName: row.fullName,
  installationId: row.installationId !== null && row.disconnectedAt === null ? row.installationId : null,
  checksSeenAt: row.checksSeenAt,
});

/**
 * The organisation's tasks keyed `key` (an attempt's key is `<KEY>/a<i>`) in a guild
 * repository named `fullName` (GitHub's names are not case-sensitive).
 */
export async function tasksOnBranch(db: AnyDatabase, organisationId: string, fullName: string, key: string): Promise<TaskWithRepository[]> {
  const rows = await withRepository(db).where(
    and(eq(tasks.organisationId, organisationId), eq(tasks.key, key), sql`lower(${guildRepositories.fullName}) = lower(${fullName})`),
  );
  return rows.map(toTaskWithRepository);
}

/** The organisation's tasks whose pull request is one of `numbers` in a repository named `fullName`. */
export async function tasksOfPulls(db: AnyDatabase, organisationId: string, fullName: string, numbers: readonly number[]): Promise<TaskWithRepository[]> {
  if (numbers.length === 0) return [];
  const rows = await withRepository(db).where(
    and(
      eq(tasks.organisationId, organisationId),
      inArray(tasks.pullRequestNumber, [...numbers]),
      sql`lower(${guildRepositories.fullName}) = lower(${fullName})`,
    ),
  );
  return rows.map(toTaskWithRepository);
}

/** The task with its repository, or null when it is gone. */
export async function taskWithRepository(db: AnyDatabase, taskId: string): Promise<TaskWithRepository | null> {
  const [row] = await withRepository(db).where(eq(tasks.id, taskId));
  return row ? toTaskWithRepository(row) : null;
}

/** The repository has checks: from its first check on, a completed task waits for them (runs.readyRequiresChecks). */
export async function markChecksSeen(db: AnyDatabase, repositoryId: string, at: Date): Promise<boolean> {
  const marked = await db
    .update(guildRepositories)
    .set({ checksSeenAt: at })
    .where(and(eq(guildRepositories.id, repositoryId), isNull(guildRepositories.checksSeenAt)))
    .returning({ id: guildRepositories.id });
  return marked.length > 0;
}

/** What recording a commit's checks on a task came to. */
export interface RecordedChecks {
  summary: ChecksSummary;
  decision: ChecksDecision;
  /** The task's status after, and whether this recording moved it. */
  status: TaskStatus;
  moved: boolean;
  awaitingChecks: boolean;
}

/**
 * Stores the commit's checks on the task and what they decide, in one transaction with the
 * row locked: the failure's commit noted as notified (so the same commit reported again never
 * tells the agent twice), awaiting cleared, and a task waiting for its checks moved to
 * in_review when they pass. Only a task waiting for its checks is ready: one a message queued
 * again, or a person closed, meanwhile stops awaiting them. `remind`: tell the agent of a
 * failure even if it was told of this commit (it completed with the checks failing).
 * Null when the task is gone.
 */
export async function recordChecks(
  db: Database,
  taskId: string,
  reading: { sha: string; runs: readonly CheckRun[]; at: Date; remind?: boolean },
): Promise<RecordedChecks | null> {
  return db.transaction(async (tx) => {
    const [task] = await tx
      .select({ status: tasks.status, checks: tasks.checks, awaitingChecks: tasks.awaitingChecks, parentTaskId: tasks.parentTaskId })
      .from(tasks)
      .where(eq(tasks.id, taskId))
      .for("update");
    if (!task) return null;
    const status = task.status as TaskStatus;
    const stored = storedChecks(task.checks);
    const awaiting = task.awaitingChecks && status === "waiting";
    const state = checksSummary(reading.sha, reading.runs, reading.at).state;
    const decision = checksDecision({
      state,
      sha: reading.sha,
      notifiedSha: reading.remind ? null : (stored?.notified_sha ?? null),
      awaiting,
      closed: CLOSED_STATUSES.has(status),
      attempt: task.parentTaskId !== null,
    });
    const summary = checksSummary(reading.sha, reading.runs, reading.at, decision.notify ? reading.sha : stored?.notified_sha);
    const after: TaskStatus = decision.ready ? "in_review" : status;
    const awaitingChecks = awaiting && !decision.stopAwaiting;
    await tx
      .update(tasks)
      .set({ checks: summary, awaitingChecks, ...(after !== status ? { status: after, updatedAt: reading.at } : {}) })
      .where(eq(tasks.id, taskId));
    return { summary, decision, status: after, moved: after !== status, awaitingChecks };
  });
}

/**
 * A completed task whose checks have not passed yet waits for them: in_review → waiting with
 * awaiting_checks, only from in_review (a person's cancel or a message meanwhile wins).
 */
export async function awaitChecks(db: AnyDatabase, taskId: string, at: Date): Promise<boolean> {
  const moved = await db
    .update(tasks)
    .set({ status: "waiting", awaitingChecks: true, updatedAt: at })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, "in_review")))
    .returning({ id: tasks.id });
  return moved.length > 0;
}

/** The notified commit is forgotten again: the message about it could not be sent. */
export async function forgetNotified(db: AnyDatabase, taskId: string, sha: string): Promise<void> {
  await db
    .update(tasks)
    .set({ checks: sql`${tasks.checks} - 'notified_sha'` })
    .where(and(eq(tasks.id, taskId), sql`${tasks.checks}->>'notified_sha' = ${sha}`));
}

/** The summary the agent gave when it last completed the task (the ready pull request's comment). */
export async function completedSummary(db: AnyDatabase, taskId: string): Promise<string> {
  const [row] = await db
    .select({ report: taskRuns.report })
    .from(taskRuns)
    .where(and(eq(taskRuns.taskId, taskId), eq(taskRuns.outcome, "completed"), isNotNull(taskRuns.endedAt)))
    .orderBy(desc(taskRuns.endedAt))
    .limit(1);
  const summary = (row?.report as { summary?: unknown } | undefined)?.summary;
  return typeof summary === "string" ? summary : "";
}
