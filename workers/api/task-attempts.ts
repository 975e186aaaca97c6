/**
 * Best of N through the API: a parent's attempts as its page shows them side by side, where a
 * message to the parent goes (its winner), and what closing the parent does to its attempts
 * (durable-objects/task/attempts.ts closeParent).
 */
import { taskObject } from "../../bindings/objects";
import { closeParentOnForge } from "../../bindings/task-attempts";
import type { Database } from "../../core/db/client";
import { attemptExtras, diffstatOf, listAttempts, messageTarget } from "../../core/db/task-attempts";
import type { TaskRow } from "../../core/db/task-rows";
import { checksOf } from "../../core/tasks/attempts";
import { taskBranch } from "../../core/tasks/key";
import type { TaskStatus } from "../../core/tasks/outcome";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";

/** The parent's attempts by number, each with its checks, diffstat and spend; empty for any other task. */
export async function attemptCards(db: Database, task: TaskRow) {
  if (task.attempts <= 1) return [];
  const attempts = await listAttempts(db, task.id);
  const extras = await attemptExtras(
    db,
    attempts.map((a) => a.id),
  );
  return attempts.map((a) => ({
    id: a.id,
    key: a.key,
    attempt: a.attempt ?? 0,
    status: a.status as TaskStatus,
    branch: taskBranch(a.key),
    checks: checksOf(a.checks),
    diffstat: diffstatOf(extras.get(a.id)?.report ?? null),
    spend_usd: extras.get(a.id)?.spendUsd ?? 0,
    won: a.pullRequestNumber !== null,
  }));
}

/** The task a message to `task` goes to: itself, or a best-of-N parent's winner; 409 when it has none yet. */
export async function messageTask(db: Database, task: TaskRow): Promise<TaskRow> {
  const target = await messageTarget(db, task);
  if (!target)
    throw new ApiError(409, "task.no_winner", "No attempt of this task has been picked: its attempts still run, or none passed. Message one of its attempts.", {
      task_id: task.id,
    });
  return target;
}

/** A parent closed through the API (cancel, done): its open attempts are cancelled and the losers' branches deleted. */
export async function closeBestOf(env: AppEnv["Bindings"], db: Database, parent: TaskRow): Promise<void> {
  await closeParentOnForge(env, db, parent, (id) => taskObject(env, id).stop(id));
}
