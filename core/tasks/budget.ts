/**
 * A task's budget (issue 33): `max_cost_usd` caps what all the task's runs spend on model
 * calls together. The check before each model call compares the task's committed spend with
 * it; reaching it ends the run `limit_reached` (detail `task.budget`), the work pushed and the
 * WIP kept, and raising the budget queues the task again. Pure: the generation loop, the
 * model gateway, the API and the pull request's description read these.
 *
 * No reservation is added to the task's figure: a task has one run at a time and each of its
 * calls is committed (its cost with its row) before the next one is checked, so the committed
 * spend is all the task has used. (The organisation's limit keeps its own holds,
 * core/usage/reservation.ts, for what-if variants made outside any task.)
 */
import { toMicros } from "../usage/reservation";

/** The error code and run report detail of a run stopped by its task's budget. */
export const TASK_BUDGET = "task.budget";

/** The largest budget a task may carry, in USD. */
export const MAX_TASK_BUDGET_USD = 100_000;

/** The task's figures as a run checks them: its budget (null: none) and what all its runs spent. */
export interface TaskBudget {
  limitUsd: number | null;
  spentUsd: number;
}

/**
 * Whether the task's spend has reached its budget: the check before each model call.
 *
 * @example budgetReached({ limitUsd: 0.01, spentUsd: 0.01 }) // true
 * @example budgetReached({ limitUsd: null, spentUsd: 5 }) // false
 */
export function budgetReached(budget: TaskBudget): boolean {
  return budget.limitUsd !== null && toMicros(budget.spentUsd) >= toMicros(budget.limitUsd);
}

/** The figures after one more committed call, in whole micro-dollars so sums stay exact. */
export function addSpend(budget: TaskBudget, costUsd: number): void {
  budget.spentUsd = (toMicros(budget.spentUsd) + toMicros(costUsd)) / 1e6;
}

/** Why the run stopped, as its error says. */
export function budgetReachedMessage(budget: TaskBudget): string {
  return `The task reached its budget of ${usd(budget.limitUsd ?? 0)} (${usd(budget.spentUsd)} spent); no model call was made. Raise max_cost_usd to go on.`;
}

/**
 * Whether a budget is one the API takes: a finite positive number of USD, at most
 * MAX_TASK_BUDGET_USD, with at most six decimals (the column's precision).
 *
 * @example validBudget(0.5) // true
 * @example validBudget(0.1234567) // false
 */
export function validBudget(value: number): boolean {
  return Number.isFinite(value) && value > 0 && value <= MAX_TASK_BUDGET_USD && Number(value.toFixed(6)) === value;
}

/**
 * USD for people: at least two decimals, at most six, trailing zeros dropped.
 *
 * @example usd(0.5) // "$0.50"
 * @example usd(0.000123) // "$0.000123"
 * @example usd(12) // "$12.00"
 */
export function usd(value: number): string {
  const fixed = value.toFixed(6).replace(/0+$/, "");
  const [whole, decimals = ""] = fixed.split(".");
  return `$${whole}.${decimals.padEnd(2, "0")}`;
}

/** A pull request description's spend line, or any line a reader would take for it. */
const SPEND_LINE = /^Spend: \$\d+(?:\.\d+)?(?: of \$\d+(?:\.\d+)? budget)?$/gm;

/**
 * The pull request description's spend line.
 *
 * @example spendLine(0.42, 1) // "Spend: $0.42 of $1.00 budget"
 * @example spendLine(0.42, null) // "Spend: $0.42"
 */
export function spendLine(spentUsd: number, limitUsd: number | null): string {
  return `Spend: ${usd(spentUsd)}${limitUsd === null ? "" : ` of ${usd(limitUsd)} budget`}`;
}

/**
 * The description with its spend line set to `line`: the last one there replaced (the
 * platform adds it at the end; the author's text above is left as written), the rest of the
 * text as it was; without one, the line added at the end after a blank line.
 *
 * @example withSpendLine("Fix it.\n\nSpend: $0.10", "Spend: $0.20") // "Fix it.\n\nSpend: $0.20"
 * @example withSpendLine("", "Spend: $0.20") // "Spend: $0.20"
 */
export function withSpendLine(body: string, line: string): string {
  const last = [...body.matchAll(SPEND_LINE)].at(-1);
  if (last) return body.slice(0, last.index) + line + body.slice(last.index + last[0].length);
  const kept = body.replace(/\s+$/, "");
  return kept ? `${kept}\n\n${line}` : line;
}
