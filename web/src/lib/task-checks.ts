import type { Task } from "./api";

/** The checks of a task's branch head as its page shows them (ISSUE-33). */
export type TaskChecks = NonNullable<Task["checks"]>;

/**
 * The line above the task's checks: what they say, and for a task waiting for them that its
 * pull request is marked ready when they pass.
 *
 * @example checksHeadline({ state: "pending", head_sha: "3f2a9c1…", … }, true) // "Waiting for checks on 3f2a9c1; marked ready when they pass"
 */
export function checksHeadline(checks: TaskChecks | null, awaiting: boolean): string | null {
  if (!checks && !awaiting) return null;
  const on = checks?.head_sha ? ` on ${checks.head_sha.slice(0, 7)}` : "";
  if (awaiting) return `Waiting for checks${on}; marked ready when they pass`;
  switch (checks?.state) {
    case "passing":
      return `Checks passed${on}`;
    case "failing":
      return `Checks failed${on}: the failure was sent to the agent`;
    case "pending":
      return `Checks running${on}`;
    default:
      return `No checks${on}`;
  }
}

/** A check run's result in words: its conclusion once completed, else its status. */
export const checkRunText = (run: TaskChecks["runs"][number]): string =>
  (run.status === "completed" ? (run.conclusion ?? "completed") : run.status).replaceAll("_", " ");

/** The badge class of a check run: passed, failed or still going. */
export function checkRunKind(run: TaskChecks["runs"][number]): "passed" | "failed" | "pending" {
  if (run.status !== "completed" || run.conclusion === null) return "pending";
  return ["success", "neutral", "skipped"].includes(run.conclusion) ? "passed" : "failed";
}
