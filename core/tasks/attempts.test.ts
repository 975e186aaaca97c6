import { describe, expect, it } from "vitest";
import { type AttemptFacts, attemptsTable, attemptTitle, checksOf, noWinnerMessage, pickWinner, winnerBody } from "./attempts";
import { attemptKey, taskBranch, volumeName, volumeObjectKey, wipBranch } from "./key";
import { statusAfterRun } from "./outcome";

const a = (attempt: number, status: AttemptFacts["status"], checks: AttemptFacts["checks"], additions = 10, deletions = 0): AttemptFacts => ({
  attempt,
  status,
  checks,
  diff: { additions, deletions },
});

describe("best of N: picking the winner", () => {
  it("ISSUE-33: the completed attempt whose checks pass wins over failing ones, whatever their diff", () => {
    const verdict = pickWinner([a(1, "completed", "failing", 1), a(2, "completed", "passing", 50, 5), a(3, "failed", "none")], true);
    expect(verdict).toEqual({ kind: "winner", attempt: 2, reason: "a2: checks pass, +50 −5" });
  });

  it("ISSUE-33: among passing attempts the smallest diff (additions + deletions) wins; a tie goes to the lower attempt", () => {
    expect(pickWinner([a(1, "completed", "passing", 8, 4), a(2, "completed", "passing", 3, 3), a(3, "completed", "passing", 10)], true)).toMatchObject({
      kind: "winner",
      attempt: 2,
    });
    expect(pickWinner([a(3, "completed", "passing", 2, 2), a(1, "completed", "passing", 4), a(2, "completed", "passing", 1, 3)], true)).toMatchObject({
      attempt: 1,
    });
  });

  it("ISSUE-33: nothing is decided while an attempt is open or a completed one's checks are pending", () => {
    expect(pickWinner([a(1, "completed", "passing"), a(2, "running", "none")], true)).toEqual({ kind: "wait", reason: "a2 still open" });
    expect(pickWinner([a(1, "completed", "passing"), a(2, "in_review", "passing")], true).kind).toBe("wait");
    expect(pickWinner([a(1, "completed", "passing"), a(2, "completed", "pending")], true)).toEqual({ kind: "wait", reason: "checks of a2 not concluded" });
    // A repository with checks whose completed attempt has none yet: its CI has not reported.
    expect(pickWinner([a(1, "completed", "none"), a(2, "failed", "none")], true).kind).toBe("wait");
  });

  it("ISSUE-33: none passing is no winner, with the reason; failed and cancelled attempts never win", () => {
    expect(pickWinner([a(1, "completed", "failing"), a(2, "failed", "passing"), a(3, "cancelled", "passing")], true)).toEqual({
      kind: "none",
      reason: "no attempt passed its checks",
    });
    expect(pickWinner([a(1, "failed", "none"), a(2, "cancelled", "none")], false).kind).toBe("none");
  });

  it("ISSUE-33: a repository without any checks lets completed attempts compete on their diff alone", () => {
    expect(pickWinner([a(1, "completed", "none", 9), a(2, "completed", "none", 4), a(3, "failed", "none", 1)], false)).toEqual({
      kind: "winner",
      attempt: 2,
      reason: "a2: completed (the repository has no checks), +4 −0",
    });
  });

  it("ISSUE-33: a completed attempt whose branch is missing or changes nothing cannot win", () => {
    const missing: AttemptFacts = { attempt: 1, status: "completed", checks: "passing", diff: null };
    expect(pickWinner([missing, a(2, "completed", "passing", 0, 0)], true).kind).toBe("none");
    expect(pickWinner([missing, a(2, "completed", "passing", 0, 0), a(3, "completed", "passing", 7)], true)).toMatchObject({ attempt: 3 });
  });

  it("ISSUE-33: the checks state is read from the stored checks, anything unknown as none", () => {
    expect(checksOf({ head_sha: "abc", state: "passing", runs: [] })).toBe("passing");
    expect(checksOf({ state: "failing" })).toBe("failing");
    expect(checksOf({})).toBe("none");
    expect(checksOf(null)).toBe("none");
    expect(checksOf({ state: "green" })).toBe("none");
  });
});

describe("best of N: an attempt's status after a run", () => {
  it("ISSUE-33: complete_task closes an attempt without a pull request as completed; the winner (with one) goes to review", () => {
    const ending = { outcome: "completed" as const, current: "running" as const, autoResumes: 0, undelivered: 0 };
    expect(statusAfterRun({ ...ending, closesOnCompletion: true }, 3, 0).status).toBe("completed");
    expect(statusAfterRun({ ...ending, closesOnCompletion: false }, 3, 0).status).toBe("in_review");
    expect(statusAfterRun(ending, 3, 0).status).toBe("in_review");
    // Other outcomes are as for any task.
    expect(statusAfterRun({ ...ending, outcome: "end_turn", closesOnCompletion: true }, 3, 0).status).toBe("waiting");
  });
});

describe("best of N: keys, titles and what the parent says", () => {
  it("ISSUE-33: an attempt's key names its branch, WIP ref and a volume of its own", () => {
    const key = attemptKey("APP-7", 1);
    expect(key).toBe("APP-7/a1");
    expect(taskBranch(key)).toBe("factory/task/APP-7/a1");
    expect(wipBranch(key)).toBe("factory/wip/APP-7/a1");
    expect(volumeName(key)).toBe("task-app-7-a1");
    expect(volumeObjectKey("r1", key)).toBe("volumes/r1/task-app-7-a1.tar.zst");
    expect(volumeName("APP-7")).toBe("task-app-7");
    expect(attemptTitle("Fix the build", 2, 3)).toBe("Fix the build (attempt 2 of 3)");
  });

  it("ISSUE-33: the winner's pull request body has its summary, Closes #n and the attempts' table", () => {
    const lines = [1, 2, 3].map((i) => ({
      ...a(i, i === 2 ? "completed" : "failed", i === 2 ? "passing" : "failing", i, 1),
      key: `APP-7/a${i}`,
      branch: `factory/task/APP-7/a${i}`,
    }));
    const body = winnerBody({ summary: "Fixed the parser.", issueNumber: 12, lines, winner: 2 });
    expect(body).toContain("Fixed the parser.");
    expect(body).toContain("Closes #12");
    expect(body).toContain("| **APP-7/a2** (picked) | completed | passing | +2 −1 |");
    expect(body).toContain("| APP-7/a1 | failed | failing | +1 −1 |");
    expect(winnerBody({ summary: "", issueNumber: null, lines, winner: 2 })).not.toContain("Closes");
    expect(attemptsTable(lines, null)).not.toContain("picked");
    const none = noWinnerMessage(lines);
    expect(none).toMatch(/^No attempt passed its checks/);
    expect(none).toContain("- APP-7/a3 (factory/task/APP-7/a3): failed, checks failing, +3 −1");
  });
});
