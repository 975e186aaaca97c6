import { describe, expect, it } from "vitest";
import { addSpend, budgetReached, spendLine, usd, validBudget, withSpendLine } from "./budget";

describe("a task's budget", () => {
  it("ISSUE-33: the budget is reached when the spend equals or passes it, in whole micro-dollars; no budget is never reached", () => {
    expect(budgetReached({ limitUsd: 0.01, spentUsd: 0.009999 })).toBe(false);
    expect(budgetReached({ limitUsd: 0.01, spentUsd: 0.01 })).toBe(true);
    expect(budgetReached({ limitUsd: 0.01, spentUsd: 0.02 })).toBe(true);
    expect(budgetReached({ limitUsd: null, spentUsd: 1e6 })).toBe(false);
    const budget = { limitUsd: 0.3, spentUsd: 0.1 };
    addSpend(budget, 0.2);
    // 0.1 + 0.2 in floating point is 0.30000000000000004: counted in micro-dollars it is exactly the budget.
    expect(budget.spentUsd).toBe(0.3);
    expect(budgetReached(budget)).toBe(true);
  });

  it("ISSUE-33: a budget the API takes is positive, at most 100000 USD, with at most six decimals", () => {
    for (const good of [0.000001, 0.5, 1, 12.345678, 100_000]) expect(validBudget(good), String(good)).toBe(true);
    for (const bad of [0, -1, 0.1234567, 100_000.000001, Number.NaN, Number.POSITIVE_INFINITY]) expect(validBudget(bad), String(bad)).toBe(false);
  });

  it("ISSUE-33: USD for people keeps two to six decimals", () => {
    expect(usd(0)).toBe("$0.00");
    expect(usd(0.5)).toBe("$0.50");
    expect(usd(0.000123)).toBe("$0.000123");
    expect(usd(12)).toBe("$12.00");
    expect(usd(1.2345678)).toBe("$1.234568");
  });
});

describe("the pull request's spend line", () => {
  it("ISSUE-33: the line names the spend and the budget, or the spend alone without one", () => {
    expect(spendLine(0.42, 1)).toBe("Spend: $0.42 of $1.00 budget");
    expect(spendLine(0.000321, null)).toBe("Spend: $0.000321");
  });

  it("ISSUE-33: the line is added after the description, then replaced in place, the rest of the body kept", () => {
    const first = withSpendLine("Fixes the login form.\n", spendLine(0.1, 1));
    expect(first).toBe("Fixes the login form.\n\nSpend: $0.10 of $1.00 budget");
    const edited = `${first}\n\nA reviewer's note below.`;
    expect(withSpendLine(edited, spendLine(0.25, 2))).toBe("Fixes the login form.\n\nSpend: $0.25 of $2.00 budget\n\nA reviewer's note below.");
    expect(withSpendLine("", spendLine(0.1, null))).toBe("Spend: $0.10");
  });

  it("ISSUE-33: only a whole line of the platform's form is replaced, the last one, never text that mentions spend", () => {
    const body = "Spend: $5 on coffee is too much\nSpend: $0.10\n\nSpend: $0.20 of $1.00 budget";
    expect(withSpendLine(body, "Spend: $0.30 of $1.00 budget")).toBe("Spend: $5 on coffee is too much\nSpend: $0.10\n\nSpend: $0.30 of $1.00 budget");
    expect(withSpendLine("We keep Spend: $1 inline.", "Spend: $0.30")).toBe("We keep Spend: $1 inline.\n\nSpend: $0.30");
  });
});
