/**
 * Best of N's forge from the Worker's settings: the App's installation token for the task's
 * repository (core/db/task-attempts-settle.ts does the rest), and the two calls other parts
 * make: a parent settling again when an attempt's checks conclude, and a parent's close.
 */

import { eq } from "drizzle-orm";
import type { Database } from "../core/db/client";
import { tasks } from "../core/db/schema";
import { type AttemptsForge, closeParent, settleParent } from "../core/db/task-attempts-settle";
import type { TaskRow } from "../core/db/task-rows";
import { readTaskForRun } from "../core/db/task-run";
import { githubChecks } from "../core/github/checks-api";
import { compareDiffstat } from "../core/github/compare";
import { describeError, logEvent } from "../core/output/log";
import type { Env } from "./env";
import { forgePlugin, githubApp } from "./github";

/** The forge for an installation token of the repository `fullName`. */
export function attemptsForgeOf(env: Env, token: string, fullName: string): AttemptsForge {
  const options = { apiUrl: env.GITHUB_API_URL || "https://api.github.com", token, fullName };
  const checks = githubChecks({ apiUrl: options.apiUrl, token });
  return {
    fullName,
    plugin: forgePlugin(env, token),
    diffstat: (base, head) => compareDiffstat(options, base, head),
    branchHead: (branch) => checks.branchHead(fullName, branch),
  };
}

/** The forge for the task's repository through the App (the repository's installation), or null. */
export async function attemptsForge(env: Env, db: Database, taskId: string): Promise<AttemptsForge | null> {
  const task = await readTaskForRun(db, taskId);
  const app = githubApp(env);
  if (!task || task.installationId === null || !app) return null;
  const { token } = await app.mintRepositoryToken(task.installationId, task.fullName);
  return attemptsForgeOf(env, token, task.fullName);
}

const log = (operation: string, taskId: string, error: unknown) => logEvent("warn", { operation, task_id: taskId, ...describeError(error) });

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
