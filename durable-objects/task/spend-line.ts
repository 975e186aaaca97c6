/**
 * The pull request's spend line (issue 33), brought up to date at the end of each run: the
 * description keeps what the platform wrote and gets `Spend: $x of $y budget` (or `Spend: $x`
 * without a budget) in place of the line it had. Never fails the run's finalizing: a forge
 * that does not answer is logged.
 */
import type { Database } from "../../core/db/client";
import { readTaskBudget } from "../../core/db/task-budget";
import type { TaskForRun } from "../../core/db/task-run";
import { describeError, logEvent } from "../../core/output/log";
import type { Redactor } from "../../core/output/redaction";
import { spendLine, withSpendLine } from "../../core/tasks/budget";
import type { RepositoryTokens } from "./repository-tokens";

export async function updateSpendLine(input: { db: Database; task: TaskForRun; tokens: RepositoryTokens; runId: string; log: Redactor }): Promise<void> {
  const { task } = input;
  const number = task.pullRequestNumber;
  if (number === null) return;
  try {
    const budget = await readTaskBudget(input.db, task.id);
    const forge = budget && (await input.tokens.forge(task));
    if (!budget || !forge) return;
    const body = await forge.pullBody({ fullName: task.fullName, number });
    const updated = withSpendLine(body, spendLine(budget.spentUsd, budget.limitUsd));
    if (updated !== body) await forge.updateBody({ fullName: task.fullName, number, body: updated });
  } catch (error) {
    logEvent("warn", { operation: "task.pull_request_spend", task_id: task.id, run_id: input.runId, ...describeError(error) }, input.log);
  }
}
