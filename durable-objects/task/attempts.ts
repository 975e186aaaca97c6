/**
 * finalize.ts's one call for best of N (core/db/task-attempts-settle.ts): after an attempt's
 * run ended and its status settled, its parent's verdict, with the forge of the run's token.
 */
import type { Env } from "../../bindings/env";
import { attemptsForgeOf } from "../../bindings/task-attempts";
import type { Database } from "../../core/db/client";
import { settleParent } from "../../core/db/task-attempts-settle";
import type { TaskForRun } from "../../core/db/task-run";
import { describeError, logEvent } from "../../core/output/log";
import type { RepositoryTokens } from "./repository-tokens";

/** Never throws (an ending is always written). */
export async function afterAttemptRun(env: Env, db: Database, tokens: RepositoryTokens, task: TaskForRun): Promise<void> {
  if (task.parentTaskId === null) return;
  try {
    const token = await tokens.token(task);
    await settleParent(db, token ? attemptsForgeOf(env, token, task.fullName) : null, task.parentTaskId);
  } catch (error) {
    logEvent("warn", { operation: "task.attempts_settle", task_id: task.parentTaskId, ...describeError(error) });
  }
}
