/**
 * A task run's finalizing (TASK-022..024): the last push and the WIP snapshot in the box, the
 * volume saved and the box destroyed, the task run's outcome, workspace and report written,
 * the task's status from the outcome (core/tasks/outcome.ts), for a completed task its pull
 * request marked ready with the summary as a comment (once its checks pass: ready-when-green.ts),
 * the organisation's queue woken, and the pull request's spend line brought up to date
 * (spend-line.ts).
 * Each step that can fail is logged and passed: an ending is always written.
 */
import { checksReader } from "../../bindings/checks";
import { taskQueue } from "../../bindings/objects";
import { finishTaskRun, runUsage, settleTask, type TaskForRun } from "../../core/db/task-run";
import { organisationTaskSettings } from "../../core/db/task-settings";
import { describeError, logEvent } from "../../core/output/log";
import { afterAttemptRun } from "./attempts";
import type { TaskBoxCommands } from "./box-commands";
import { markPullRequestReady } from "./pull-ready";
import { readyWhenGreen } from "./ready-when-green";
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
    // Ready only when green (ISSUE-33): the branch's checks may hold the pull request back.
    const ready = await checksGate(input, log).catch((error: unknown) => {
      log("task.checks_gate", error);
      return true;
    });
    if (ready) await readyForReview(input, task.pullRequestNumber, ending.summary ?? "").catch((error: unknown) => log("task.pull_request_ready", error));
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
  await markPullRequestReady(forge, { fullName: input.task.fullName, number }, summary);
}

/** Whether the pull request is marked ready now, or waits for (or was sent) the branch's checks (ready-when-green.ts). */
async function checksGate(input: FinalizeInput, log: (operation: string, error: unknown) => void): Promise<boolean> {
  const { context, stream } = input.rooms;
  const db = context.database.db();
  return readyWhenGreen({
    env: context.env,
    db,
    now: () => context.now(),
    taskId: input.task.id,
    // The setting as it is now, as the task's status after the run reads its settings.
    requiresChecks: (await organisationTaskSettings(db, input.task.organisationId))["runs.readyRequiresChecks"],
    reader: (target) => checksReader(context.env, target),
    forge: () => input.tokens.forge(input.task),
    publish: async (checks, status) => {
      stream.checks(input.task.id, checks);
      if (status) stream.status(input.task.id, status);
    },
    log,
  });
}
