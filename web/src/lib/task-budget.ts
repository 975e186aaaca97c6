/**
 * A task's budget as its page shows it (issue 33): what all its runs spent against the
 * budget, and whether the budget is what stopped it. Pure.
 */
import { usd } from "./format";

/** The run report detail of a run its task's budget stopped. */
export const TASK_BUDGET_DETAIL = "task.budget";

/**
 * @example spendText({ spend_usd: 0.42, max_cost_usd: 1 }) // "Spent $0.4200 of $1.00 budget"
 * @example spendText({ spend_usd: 0.42, max_cost_usd: null }) // "Spent $0.4200"
 */
export function spendText(task: { spend_usd: number; max_cost_usd: number | null }): string {
  return `Spent ${usd(task.spend_usd)}${task.max_cost_usd === null ? "" : ` of ${usd(task.max_cost_usd)} budget`}`;
}

/** Whether the task waits because its budget stopped its latest run: limit_reached, the latest run's detail task.budget. */
export function stoppedByBudget(status: string, runs: ReadonlyArray<{ created_at: string; report: Record<string, unknown> }>): boolean {
  if (status !== "limit_reached") return false;
  const latest = runs.reduce<(typeof runs)[number] | null>(
    (last, run) => (!last || Date.parse(run.created_at) >= Date.parse(last.created_at) ? run : last),
    null,
  );
  return latest?.report.detail === TASK_BUDGET_DETAIL;
}

/**
 * The budget field's text as the PATCH sends it: empty is no budget (null), a number as typed
 * (the API names what else is wrong with it); text that is no number is refused here, as JSON
 * would send it as null and remove the budget.
 *
 * @example budgetInput(" ") // { ok: true, value: null }
 * @example budgetInput("2.5") // { ok: true, value: 2.5 }
 */
export function budgetInput(text: string): { ok: true; value: number | null } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: null };
  const value = Number(trimmed);
  return Number.isFinite(value) ? { ok: true, value } : { ok: false, message: "must be an amount of USD, e.g. 2.50, or empty for no budget" };
}
