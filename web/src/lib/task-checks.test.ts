import { describe, expect, it } from "vitest";
import { checkRunKind, checkRunText, checksHeadline, type TaskChecks } from "./task-checks";

const checks = (state: TaskChecks["state"]): TaskChecks => ({
  head_sha: "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
  state,
  runs: [],
  updated_at: "2026-12-06T12:00:00Z",
});

describe("a task's checks on its page (ISSUE-33)", () => {
  it("ISSUE-33: the headline says waiting for checks while the task awaits them, else what they said of the head", () => {
    expect(checksHeadline(null, false)).toBeNull();
    expect(checksHeadline(checks("pending"), true)).toBe("Waiting for checks on 3f2a9c1; marked ready when they pass");
    expect(checksHeadline(null, true)).toBe("Waiting for checks; marked ready when they pass");
    expect(checksHeadline(checks("passing"), false)).toBe("Checks passed on 3f2a9c1");
    expect(checksHeadline(checks("failing"), false)).toBe("Checks failed on 3f2a9c1: the failure was sent to the agent");
    expect(checksHeadline(checks("pending"), false)).toBe("Checks running on 3f2a9c1");
  });

  it("ISSUE-33: a run reads as its conclusion once completed, and is passed, failed or pending", () => {
    const run = { name: "test", status: "completed", conclusion: "timed_out", url: null };
    expect(checkRunText(run)).toBe("timed out");
    expect(checkRunKind(run)).toBe("failed");
    expect(checkRunText({ ...run, status: "in_progress", conclusion: null })).toBe("in progress");
    expect(checkRunKind({ ...run, status: "in_progress", conclusion: null })).toBe("pending");
    expect(checkRunKind({ ...run, conclusion: "skipped" })).toBe("passed");
  });
});
