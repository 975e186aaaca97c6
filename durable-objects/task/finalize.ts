/**
 * A task run's finalizing (TASK-022..024): the last push and the WIP snapshot in the box, the
 * volume saved and the box destroyed, the task run's outcome, workspace and report written,
 * the task's status from the outcome (core/tasks/outcome.ts), for a completed task its pull
 * request marked ready with the summary as a comment, the organisation's queue woken, and the
 * pull request's spend line brought up to date (spend-line.ts).
 * Each step that can fail is logged and passed: an ending is always written.
 */
import { taskQueue } from "../../bindings/objects";
import { finishTaskRun, runUsage, settleTask, type TaskForRun } from "../../core/db/task-run";
import { describeError, logEvent } from "../../core/output/log";
import { afterAttemptRun } from "./attempts";
import type { TaskBoxCommands } from "./box-commands";
import type { RepositoryTokens } from "./repository-tokens";
import type { Refusal, RunEnding } from "./run-driver";
import { updateSpendLine } from "./spend-line";
import type { TaskRooms } from "./task-rooms";

export interface FinalizeInput {
  rooms: TaskRooms;
  task: TaskForRun;
  taskRunId: string;
  runId: string;
  ending: RunEnding;
  /** The box's commands when the workspace was prepared; null when it never got that far (or was lost). */
  box: TaskBoxCommands | null;
  refusals: readonly Refusal[];
  tokens: RepositoryTokens;
}

export async function finalizeRun(input: FinalizeInput): Promise<void> {
  const { rooms, task, ending } = input;
  const { context } = rooms;
  const log = (operation: string, error: unknown) =>
    logEvent("warn", { operation, task_id: task.id, run_id: input.runId, ...describeError(error) }, context.log);
  // The last push and the WIP snapshot, while the box lives (TASK-022).
  let workspace: Record<string, unknown> = {};
  if (input.box && ending.outcome !== "sandbox_lost") {
    const finalized = await input.box.finalize().catch((error: unknown) => ({ ok: false as const, message: describeError(error).message }));
    if (finalized.ok) {
      const { head, ahead, wip, pushed, dirty } = finalized.value;
      workspace = { head, ahead, wip, pushed, dirty };
    } else workspace = { error: finalized.message };
  }
  // The volume is saved only from a workspace that was prepared; the box goes either way.
  const released = await context.box.release({ save: input.box !== null && ending.outcome !== "sandbox_lost" }).catch((error: unknown) => {
    log("task.box_release", error);
    return { savedBytes: null };
  });
  const db = context.database.db();
  const endedAt = new Date(context.now());
  const usage = await runUsage(db, input.runId).catch(() => null);
  const report = {
    outcome: ending.outcome,
    ...(ending.detail ? { detail: ending.detail } : {}),
    ...(ending.resetAt ? { reset_at: new Date(ending.resetAt).toISOString() } : {}),
    commits_ahead: typeof workspace.ahead === "number" ? workspace.ahead : null,
    usage,
    refusals: input.refusals,
    summary: ending.summary ?? null,
    ...(ending.outcome === "handed_off" ? { handoff: ending.handoff ?? null } : {}),
    ...(ending.harness ? { harness: ending.harness } : {}),
    volume_saved_bytes: released.savedBytes,
  };
  await finishTaskRun(db, { taskRunId: input.taskRunId, runId: input.runId, outcome: ending.outcome, endedAt, workspace, report });
  const after = await settleTask(db, task.id, { outcome: ending.outcome, resetAt: ending.resetAt ?? null }, endedAt);
  // The run's credential dies with its ending (TASK-011).
  rooms.state.end(input.taskRunId);
  rooms.stream.runEnded(task.id, input.runId, ending.outcome);
  if (after) rooms.stream.status(task.id, after.status);
  logEvent("info", { operation: "task.run_ended", task_id: task.id, run_id: input.runId, outcome: ending.outcome, status: after?.status ?? null });
  if (ending.outcome === "completed" && after?.status === "in_review" && task.pullRequestNumber !== null) {
    await readyForReview(input, task.pullRequestNumber, ending.summary ?? "").catch((error: unknown) => log("task.pull_request_ready", error));
  }
  // Best of N: an attempt's parent picks its winner once every attempt is closed (attempts.ts).
  if (task.parentTaskId !== null) await afterAttemptRun(context.env, db, input.tokens, task);
  await taskQueue(context.env, task.organisationId)
    .wake(task.organisationId)
    .catch((error: unknown) => log("task.queue_wake", error));
  // Issue 33: the pull request's spend line, after the queue heard (it never throws).
  await updateSpendLine({ db, task, tokens: input.tokens, runId: input.runId, log: context.log });
}

/** TASK-024: the draft pull request becomes ready for review, with the agent's summary as a comment. */
async function readyForReview(input: FinalizeInput, number: number, summary: string): Promise<void> {
  const forge = await input.tokens.forge(input.task);
  if (!forge) return;
  // The summary first: a reviewer who sees the pull request ready finds it there already.
  if (summary.trim()) await forge.comment({ fullName: input.task.fullName, number, body: summary });
  await forge.markReady({ fullName: input.task.fullName, number, nodeId: "" });
}
