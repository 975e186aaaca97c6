import { describe, expect, it } from "vitest";
import { budgetInput, spendText, stoppedByBudget } from "./task-budget";

describe("a task's budget on its page", () => {
  it("ISSUE-33: the spend reads against the budget, or alone without one", () => {
    expect(spendText({ spend_usd: 0.0012, max_cost_usd: 0.001 })).toBe("Spent $0.0012 of $0.0010 budget");
    expect(spendText({ spend_usd: 3.5, max_cost_usd: null })).toBe("Spent $3.50");
  });

  it("ISSUE-33: the task is shown stopped by its budget only when limit_reached and its latest run says task.budget", () => {
    const runs = [
      { created_at: "2026-05-01T10:00:00Z", report: { detail: "generation.max_steps" } },
      { created_at: "2026-05-01T11:00:00Z", report: { detail: "task.budget" } },
    ];
    expect(stoppedByBudget("limit_reached", runs)).toBe(true);
    expect(stoppedByBudget("limit_reached", runs.slice(0, 1))).toBe(false);
    expect(stoppedByBudget("queued", runs)).toBe(false);
    expect(stoppedByBudget("limit_reached", [])).toBe(false);
  });

  it("ISSUE-33: an empty budget field removes the budget; a number is sent as typed; text that is no number is refused before sending", () => {
    expect(budgetInput("")).toEqual({ ok: true, value: null });
    expect(budgetInput(" 2.5 ")).toEqual({ ok: true, value: 2.5 });
    expect(budgetInput("-1")).toEqual({ ok: true, value: -1 });
    for (const bad of ["abc", "1e999", "NaN"]) expect(budgetInput(bad).ok, bad).toBe(false);
  });
});
