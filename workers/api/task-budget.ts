import { taskObject } from "../../bindings/objects";
import type { Database } from "../../core/db/client";
import { requeueUnderBudget, setTaskBudget } from "../../core/db/task-budget";
import type { TaskView } from "../../core/db/task-rows";
import { logEvent } from "../../core/output/log";
import { platformRedactor } from "../../core/output/redaction";
import type { AppEnv } from "../http/context";

/**
 * A person changes a task's budget (issue 33, `PATCH /api/tasks/:id`). Raised (or removed) over
 * the spend of a task its budget stopped, the task is queued again where it stopped (the
 * caller wakes the queue); on a running task the run's figure follows at once, so a budget
 * lowered under the spend stops the run at its next model call.
 *
 * @example if ((await updateTaskBudget(env, db, task, 5)).requeued) await wakeQueue(env, task.organisationId);
 */
export async function updateTaskBudget(env: AppEnv["Bindings"], db: Database, task: TaskView, limitUsd: number | null): Promise<{ requeued: boolean }> {
  await setTaskBudget(db, task.id, limitUsd);
  const requeued = await requeueUnderBudget(db, task.id);
  if (!requeued && task.status === "running") {
    // The run also reads the budget afresh at each turn: a call that fails here is caught up there.
    await taskObject(env, task.id)
      .budgetChanged(task.id, limitUsd)
      .catch((error: unknown) => logEvent("warn", { operation: "task.budget_changed", task_id: task.id, error }, platformRedactor(env)));
  }
  return { requeued };
}
