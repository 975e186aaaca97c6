/**
 * Best of N: a task filed with `attempts` 2..4 runs that many attempts side by side, each a
 * task of its own on `factory/task/<KEY>/a<i>`. When every attempt is closed, the winner is
 * the completed attempt whose checks pass with the smallest diff against the base (ties: the
 * lower attempt number); a repository with no checks at all lets every completed attempt
 * compete on its diff alone. None passing: no winner, and every branch is kept. Pure: the
 * task object's settling (durable-objects/task/attempts.ts) reads it.
 *
 * @example
 *   pickWinner([{ attempt: 1, status: "completed", checks: "failing", diff: { additions: 3, deletions: 1 } },
 *               { attempt: 2, status: "completed", checks: "passing", diff: { additions: 9, deletions: 0 } }], true)
 *   // { kind: "winner", attempt: 2, reason: "a2: checks pass, +9 −0" }
 */
import { CLOSED_STATUSES, type TaskStatus } from "./outcome";

export const MIN_ATTEMPTS = 1;
export const MAX_ATTEMPTS = 4;

/** The state of a branch's checks as `tasks.checks.state` records it. */
export type AttemptChecks = "none" | "pending" | "passing" | "failing";

export interface Diffstat {
  additions: number;
  deletions: number;
}

/** What the picking reads of one attempt. */
export interface AttemptFacts {
  attempt: number;
  status: TaskStatus;
  checks: AttemptChecks;
  /** Its branch against the base (the compare API); null when the branch is not on the forge. */
  diff: Diffstat | null;
}

export type Verdict =
  /** Some attempt is still open, or a completed one's checks have not concluded: decide later. */
  { kind: "wait"; reason: string } | { kind: "winner"; attempt: number; reason: string } | { kind: "none"; reason: string };

/** The title of attempt `i` of `n`. @example attemptTitle("Fix it", 2, 3) // "Fix it (attempt 2 of 3)" */
export const attemptTitle = (title: string, attempt: number, of: number) => `${title} (attempt ${attempt} of ${of})`;

/** The attempt's state read from `tasks.checks` jsonb; anything else is `none`. */
export function checksOf(stored: unknown): AttemptChecks {
  const state = stored && typeof stored === "object" ? (stored as { state?: unknown }).state : undefined;
  return state === "pending" || state === "passing" || state === "failing" ? state : "none";
}

export const diffSize = (diff: Diffstat) => diff.additions + diff.deletions;
const label = (a: AttemptFacts) => `a${a.attempt}`;
const stat = (diff: Diffstat | null) => (diff ? `+${diff.additions} −${diff.deletions}` : "no branch");

/**
 * The verdict over all attempts. `repositoryHasChecks`: a check run was ever reported for the
 * repository; without any, checks `none` stands for passing (nothing to pass).
 */
export function pickWinner(attempts: readonly AttemptFacts[], repositoryHasChecks: boolean): Verdict {
  const open = attempts.filter((a) => !CLOSED_STATUSES.has(a.status));
  if (open.length) return { kind: "wait", reason: `${open.map(label).join(", ")} still open` };
  const completed = attempts.filter((a) => a.status === "completed" && a.diff !== null && diffSize(a.diff) > 0);
  // A completed attempt with work on its branch whose checks have not concluded (or not
  // arrived yet in a repository that has checks) may still pass: the verdict waits for it.
  const undecided = completed.filter((a) => a.checks === "pending" || (repositoryHasChecks && a.checks === "none"));
  if (undecided.length) return { kind: "wait", reason: `checks of ${undecided.map(label).join(", ")} not concluded` };
  const passing = completed.filter((a) => a.checks === "passing" || (!repositoryHasChecks && a.checks === "none"));
  if (!passing.length) return { kind: "none", reason: "no attempt passed its checks" };
  const [best] = [...passing].sort((a, b) => diffSize(a.diff!) - diffSize(b.diff!) || a.attempt - b.attempt);
  const why = repositoryHasChecks ? "checks pass" : "completed (the repository has no checks)";
  return { kind: "winner", attempt: best!.attempt, reason: `${label(best!)}: ${why}, ${stat(best!.diff)}` };
}

/** One attempt as the pull request's table and the parent's message show it. */
export interface AttemptLine extends AttemptFacts {
  key: string;
  branch: string;
}

/** The markdown table of the attempts: outcome, checks, diffstat; the winner marked. */
export function attemptsTable(lines: readonly AttemptLine[], winner: number | null): string {
  const rows = [...lines]
    .sort((a, b) => a.attempt - b.attempt)
    .map((a) => `| ${a.attempt === winner ? "**" : ""}${a.key}${a.attempt === winner ? "** (picked)" : ""} | ${a.status} | ${a.checks} | ${stat(a.diff)} |`);
  return ["| Attempt | Outcome | Checks | Diff |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/**
 * The winner's pull request body: its summary, `Closes #<n>` for the issue that filed the
 * task, and the attempts' table.
 */
export function winnerBody(input: { summary: string; issueNumber: number | null; lines: readonly AttemptLine[]; winner: number }): string {
  return [
    input.summary.trim() || "(no summary)",
    ...(input.issueNumber !== null ? [`Closes #${input.issueNumber}`] : []),
    `Best of ${input.lines.length}: attempt ${input.winner} was picked.`,
    attemptsTable(input.lines, input.winner),
  ].join("\n\n");
}

/** What the parent says when no attempt passed: every attempt and its branch, all kept. */
export function noWinnerMessage(lines: readonly AttemptLine[]): string {
  const each = [...lines].sort((a, b) => a.attempt - b.attempt).map((a) => `- ${a.key} (${a.branch}): ${a.status}, checks ${a.checks}, ${stat(a.diff)}`);
  return ["No attempt passed its checks; every attempt's branch is kept.", ...each].join("\n");
}
