/**
 * What a commit's checks do to a task (ISSUE-33), wherever they were read: a check completing
 * on the forge (forge/checks.ts) or a run completing (ready-when-green.ts). The summary is
 * stored with its decision (core/db/task-checks.ts), the task's page hears it, a failure
 * becomes one message to the agent (which queues the task again), and a task that waited for
 * its checks has its pull request marked ready when they pass.
 */
import type { Env } from "../../bindings/env";
import { sendTaskMessage } from "../../bindings/task-messages";
import type { Database } from "../../core/db/client";
import { completedSummary, forgetNotified, type RecordedChecks, recordChecks, type TaskWithRepository } from "../../core/db/task-checks";
import type { TaskEventData } from "../../core/events/streams";
import type { CheckRun } from "../../core/github/checks-api";
import type { ForgePlugin } from "../../core/github/forge-plugin";
import { failureMessage } from "../../core/tasks/checks";
import type { TaskStatus } from "../../core/tasks/outcome";
import { markPullRequestReady } from "./pull-ready";

export interface ChecksEffects {
  env: Env;
  db: Database;
  now(): number;
  /** The forge that marks the task's pull request ready; null without a token. */
  forge(): Promise<ForgePlugin | null>;
  /** Tells the task's page: its checks, and its status when that moved. */
  publish(checks: TaskEventData["task.checks"], status: TaskStatus | null): Promise<void>;
}

export interface AppliedChecks extends RecordedChecks {
  /** What was done, for the delivery's detail. */
  detail: string;
}

/**
 * Records `runs` of the task's branch head `sha` and acts on them; null when the task is gone.
 * `remind`: tell the agent of a failure even if it was told of this commit already.
 */
export async function applyChecks(
  fx: ChecksEffects,
  target: TaskWithRepository,
  reading: { sha: string; runs: readonly CheckRun[]; remind?: boolean },
): Promise<AppliedChecks | null> {
  const { task } = target;
  const recorded = await recordChecks(fx.db, task.id, { ...reading, at: new Date(fx.now()) });
  if (!recorded) return null;
  const { notified_sha: _notified, ...shown } = recorded.summary;
  // The page's event is a courtesy: the row is the truth, and the page reads it again on its next event.
  await fx.publish({ ...shown, awaiting_checks: recorded.awaitingChecks }, recorded.moved ? recorded.status : null).catch(() => {});
  const done = [`checks ${recorded.summary.state} on ${reading.sha.slice(0, 7)} recorded on ${task.key}`];
  if (recorded.decision.notify) {
    try {
      await sendTaskMessage(fx.env, fx.db, task, failureMessage(reading.sha, reading.runs), false);
    } catch (error) {
      // Not sent: the commit is not noted as told, so the next report of it tries again.
      await forgetNotified(fx.db, task.id, reading.sha).catch(() => {});
      throw error;
    }
    done.push("the failure sent to the agent");
  }
  if (recorded.decision.ready && task.pullRequestNumber !== null) {
    const forge = await fx.forge();
    if (forge) {
      await markPullRequestReady(forge, { fullName: target.fullName, number: task.pullRequestNumber }, await completedSummary(fx.db, task.id));
      done.push(`pull request #${task.pullRequestNumber} marked ready`);
    }
  }
  return { ...recorded, detail: done.join(", ") };
}
