/**
 * Best of N on the forge: when an attempt's status settles, its parent looks at every attempt
 * (core/tasks/attempts.ts pickWinner) and, once all are closed and their checks concluded,
 * either opens the pull request from the winner's branch (ready: its checks pass), or says that
 * no attempt passed and keeps every branch. When the parent closes, the branches of the
 * attempts that lost are deleted. The parent's move out of `running` is a conditional update
 * (claimSettlement), so two attempts ending at the same instant open one pull request.
 */

import { eq } from "drizzle-orm";
import type { Env } from "../../bindings/env";
import { forgePlugin, githubApp } from "../../bindings/github";
import type { Database } from "../../core/db/client";
import { guildRepositories, tasks } from "../../core/db/schema";
import { attemptExtras, claimSettlement, diffstatOf, listAttempts, openAttempts, recordDiffstat, setWinner, winnerOf } from "../../core/db/task-attempts";
import { insertTaskMessage, moveTask, type TaskRow } from "../../core/db/task-rows";
import { readTaskForRun, type TaskForRun } from "../../core/db/task-run";
import { compareDiffstat } from "../../core/github/compare";
import type { ForgePlugin } from "../../core/github/forge-plugin";
import { describeError, logEvent } from "../../core/output/log";
import { type AttemptLine, checksOf, type Diffstat, noWinnerMessage, pickWinner, type Verdict, winnerBody } from "../../core/tasks/attempts";
import { taskBranch, wipBranch } from "../../core/tasks/key";
import { CANCELLABLE } from "../../core/tasks/transitions";
import type { RepositoryTokens } from "./repository-tokens";

/** The forge as best of N uses it for one repository; null when it has no installation token. */
export interface AttemptsForge {
  /** The repository's `owner/name`. */
  fullName: string;
  plugin: ForgePlugin;
  /** The branch's lines added and deleted against the base; null when the forge lacks one of them. */
  diffstat(base: string, head: string): Promise<Diffstat | null>;
}

/** The forge for the task's repository through the App (the repository's installation), or null. */
export async function attemptsForge(env: Env, db: Database, taskId: string): Promise<AttemptsForge | null> {
  const task = await readTaskForRun(db, taskId);
  const app = githubApp(env);
  if (!task || task.installationId === null || !app) return null;
  const { token } = await app.mintRepositoryToken(task.installationId, task.fullName);
  const options = { apiUrl: env.GITHUB_API_URL || "https://api.github.com", token, fullName: task.fullName };
  return { fullName: task.fullName, plugin: forgePlugin(env, token), diffstat: (base, head) => compareDiffstat(options, base, head) };
}

/** The same from a run's tokens (the task object's finalizing): the attempt's repository is its parent's. */
export async function runAttemptsForge(env: Env, tokens: RepositoryTokens, task: TaskForRun): Promise<AttemptsForge | null> {
  const token = await tokens.token(task);
  if (!token) return null;
  const options = { apiUrl: env.GITHUB_API_URL || "https://api.github.com", token, fullName: task.fullName };
  return { fullName: task.fullName, plugin: forgePlugin(env, token), diffstat: (base, head) => compareDiffstat(options, base, head) };
}

/**
 * finalize.ts's one call for an attempt whose run ended and whose status settled: its parent's
 * verdict. Never throws (an ending is always written).
 */
export async function afterAttemptRun(env: Env, db: Database, tokens: RepositoryTokens, task: TaskForRun): Promise<void> {
  if (task.parentTaskId === null) return;
  try {
    await settleParent(db, await runAttemptsForge(env, tokens, task), task.parentTaskId);
  } catch (error) {
    log("task.attempts_settle", task.parentTaskId, error);
  }
}

/**
 * The parent of `attemptId` settles again (its checks concluded after it closed: the checks'
 * handler calls this for a task with a parent). Never throws.
 */
export async function settleParentOf(env: Env, db: Database, attemptId: string): Promise<void> {
  const [attempt] = await db.select({ parentTaskId: tasks.parentTaskId }).from(tasks).where(eq(tasks.id, attemptId));
  if (!attempt?.parentTaskId) return;
  try {
    await settleParent(db, await attemptsForge(env, db, attempt.parentTaskId), attempt.parentTaskId);
  } catch (error) {
    log("task.attempts_settle", attempt.parentTaskId, error);
  }
}

/**
 * A best-of-N parent closed (the API's cancel or done, its pull request merged): closeParent
 * with the repository's forge. Never throws: the close stands, a forge that fails is logged.
 */
export async function closeParentOnForge(env: Env, db: Database, parent: TaskRow, stop: (taskId: string) => Promise<unknown>): Promise<string[]> {
  if (parent.attempts <= 1) return [];
  try {
    const forge = await attemptsForge(env, db, parent.id).catch((error: unknown) => {
      log("task.attempts_forge", parent.id, error);
      return null;
    });
    return await closeParent(db, forge, parent, stop);
  } catch (error) {
    log("task.attempts_close", parent.id, error);
    return [];
  }
}

const log = (operation: string, taskId: string, error: unknown) => logEvent("warn", { operation, task_id: taskId, ...describeError(error) });

/**
 * After an attempt's status settled: the parent's verdict, acted on by the one evaluation that
 * moves it out of `running`. Returns the verdict (wait while an attempt is open or its checks
 * pending). Called again when an attempt's checks conclude (the checks' handler may call it).
 */
export async function settleParent(db: Database, forge: AttemptsForge | null, parentId: string): Promise<Verdict | null> {
  const [parent] = await db.select().from(tasks).where(eq(tasks.id, parentId));
  if (parent?.status !== "running") return null;
  const attempts = await listAttempts(db, parentId);
  const lines = await attemptLines(db, forge, parent, attempts);
  const [repository] = await db
    .select({ checksSeenAt: guildRepositories.checksSeenAt })
    .from(guildRepositories)
    .where(eq(guildRepositories.id, parent.repositoryId));
  const verdict = pickWinner(lines, repository?.checksSeenAt != null);
  if (verdict.kind === "wait") return verdict;
  if (verdict.kind === "none") {
    if (await claimSettlement(db, parentId, "waiting")) await insertTaskMessage(db, parentId, noWinnerMessage(lines));
    return verdict;
  }
  const claimed = await claimSettlement(db, parentId, "in_review");
  if (!claimed) return verdict;
  const winner = attempts.find((a) => a.attempt === verdict.attempt)!;
  try {
    if (!forge) throw new Error("the repository has no installation of the App: no pull request can be opened");
    const extras = await attemptExtras(db, [winner.id]);
    const summary = typeof extras.get(winner.id)?.report?.summary === "string" ? (extras.get(winner.id)!.report!.summary as string) : "";
    const { fullName } = forge;
    const opened = await forge.plugin.openDraftPR({
      fullName,
      head: taskBranch(winner.key),
      base: parent.baseBranch,
      title: `${parent.key}: ${parent.title}`,
      body: winnerBody({ summary, issueNumber: parent.issueNumber, lines, winner: verdict.attempt }),
    });
    await setWinner(db, parent, winner.id, opened);
    // Its checks pass: ready for review at once.
    await forge.plugin.markReady({ fullName, number: opened.number, nodeId: opened.nodeId });
  } catch (error) {
    log("task.attempts_pull_request", parentId, error);
    if (await moveTask(db, parentId, ["in_review"], "waiting")) {
      await insertTaskMessage(db, parentId, `${verdict.reason}, but its pull request could not be opened: ${describeError(error).message}`);
    }
  }
  return verdict;
}

/** Each attempt as the picking and the tables read it; its diffstat asked of the forge afresh and kept on its report. */
async function attemptLines(db: Database, forge: AttemptsForge | null, parent: TaskRow, attempts: readonly TaskRow[]): Promise<AttemptLine[]> {
  const extras = await attemptExtras(
    db,
    attempts.map((a) => a.id),
  );
  return Promise.all(
    attempts.map(async (a) => {
      let diff = diffstatOf(extras.get(a.id)?.report ?? null);
      if (forge) {
        try {
          diff = await forge.diffstat(parent.baseBranch, taskBranch(a.key));
          await recordDiffstat(db, a.id, diff);
        } catch (error) {
          log("task.attempt_diffstat", a.id, error);
        }
      }
      return { attempt: a.attempt ?? 0, key: a.key, branch: taskBranch(a.key), status: a.status as AttemptLine["status"], checks: checksOf(a.checks), diff };
    }),
  );
}

/**
 * A parent closed (cancelled, marked done, its pull request merged): its open attempts are
 * cancelled (`stop` ends each one's run), and the branches of the attempts that lost — task
 * and WIP — are deleted. Without a winner every branch is kept. Returns the branches deleted.
 */
export async function closeParent(db: Database, forge: AttemptsForge | null, parent: TaskRow, stop: (taskId: string) => Promise<unknown>): Promise<string[]> {
  if (parent.attempts <= 1) return [];
  for (const attempt of await openAttempts(db, parent.id)) {
    if (await moveTask(db, attempt.id, CANCELLABLE, "cancelled", { closedAt: "now", resumeAt: null })) {
      await stop(attempt.id).catch((error: unknown) => log("task.attempt_stop", attempt.id, error));
    }
  }
  const winner = await winnerOf(db, parent.id);
  if (!winner || !forge) return [];
  const deleted: string[] = [];
  for (const attempt of await listAttempts(db, parent.id)) {
    if (attempt.id === winner.id) continue;
    for (const branch of [taskBranch(attempt.key), wipBranch(attempt.key)]) {
      const gone = await forge.plugin.deleteBranch({ fullName: forge.fullName, branch }).catch((error: unknown) => {
        log("task.attempt_branch_delete", attempt.id, error);
        return false;
      });
      if (gone) deleted.push(branch);
    }
  }
  return deleted;
}
