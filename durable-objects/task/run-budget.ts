/**
 * The task's budget as one run checks it (issue 33). The figures are one object the run's
 * generations share (GenerationInputs.budget): read afresh before the run provisions its box
 * and at each turn's start, raised by each reply's cost as it is committed, and set by a
 * person's PATCH at once (TaskObject.budgetChanged), so a budget lowered mid-turn stops the
 * run at its next model call.
 */
import type { AnyDatabase } from "../../core/db/client";
import { riding } from "../../core/db/outage";
import { readTaskBudget } from "../../core/db/task-budget";
import { budgetReached, type TaskBudget } from "../../core/tasks/budget";

export class RunBudget {
  readonly figures: TaskBudget = { limitUsd: null, spentUsd: 0 };

  constructor(private readonly taskId: string) {}

  /**
   * The task's budget and spend as the database has them now; whether the budget is reached.
   * A short outage is ridden out as the run's writes ride it out.
   */
  async refresh(db: AnyDatabase): Promise<boolean> {
    const now = await riding(() => readTaskBudget(db, this.taskId));
    if (now) Object.assign(this.figures, now);
    return budgetReached(this.figures);
  }

  /** A person set the budget (null: none). */
  changed(limitUsd: number | null): void {
    this.figures.limitUsd = limitUsd;
  }
}
