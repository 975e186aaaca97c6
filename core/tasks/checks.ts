/**
 * What a task makes of its branch's checks (CI reaches the task): the state of a commit's
 * check runs, the one message that tells the agent what failed, and the summary stored on the
 * task (`tasks.checks`) that its page shows. Pure: no Workers API.
 *
 * @example
 *   checksState(runs) // "failing"
 *   failureMessage("3f2a9c1…", runs) // "CI failed on 3f2a9c1: fix it and push. …"
 */
import type { CheckRun } from "../github/checks-api";

export type ChecksState = "none" | "pending" | "passing" | "failing";

/** Conclusions that fail a commit: the pull request is not ready while one stands. */
export const FAILING_CONCLUSIONS: ReadonlySet<string> = new Set(["failure", "timed_out", "cancelled", "action_required", "startup_failure", "stale"]);
/** Conclusions that pass. */
export const PASSING_CONCLUSIONS: ReadonlySet<string> = new Set(["success", "neutral", "skipped"]);

/** How much of a failed check's output text the message carries: its end, where the error is. */
export const OUTPUT_TAIL_BYTES = 4 * 1024;
/** A check's summary is cut past this (GitHub allows 64 KiB). */
const SUMMARY_BYTES = 4 * 1024;
/** Failed checks named in full in one message; the rest are listed by name. */
const MESSAGE_CHECKS = 20;

/**
 * The latest run of each check name (a re-run replaces the run it re-ran; GitHub lists the
 * newest first, and a higher id is newer).
 */
export function latestRuns(runs: readonly CheckRun[]): CheckRun[] {
  const byName = new Map<string, CheckRun>();
  for (const run of runs) {
    const seen = byName.get(run.name);
    if (!seen || run.id > seen.id) byName.set(run.name, run);
  }
  return [...byName.values()];
}

/**
 * The state of a commit's checks: `none` without runs; `pending` while any has not completed
 * (a suite completing while another still runs is pending); `failing` when one concluded
 * failing; `passing` when every one passed, was neutral or skipped.
 *
 * @example checksState([{ status: "completed", conclusion: "success", … }]) // "passing"
 */
export function checksState(runs: readonly CheckRun[]): ChecksState {
  const latest = latestRuns(runs);
  if (latest.length === 0) return "none";
  if (latest.some((run) => run.status !== "completed" || run.conclusion === null)) return "pending";
  if (latest.some((run) => !PASSING_CONCLUSIONS.has(run.conclusion!))) return "failing";
  return "passing";
}

/** The runs that failed the commit. */
export function failedRuns(runs: readonly CheckRun[]): CheckRun[] {
  return latestRuns(runs).filter((run) => run.status === "completed" && run.conclusion !== null && !PASSING_CONCLUSIONS.has(run.conclusion));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The last `maxBytes` of `text` in UTF-8, cut on a character boundary, and whether it was cut.
 *
 * @example tailWithin("ab€", 3) // { text: "€", cut: true }
 */
export function tailWithin(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, cut: false };
  let start = bytes.length - maxBytes;
  // A continuation byte (10xxxxxx) is the middle of a character: start after it.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return { text: decoder.decode(bytes.subarray(start)), cut: true };
}

/** The first `maxBytes` of `text` in UTF-8, cut on a character boundary. */
function headWithin(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: decoder.decode(bytes.subarray(0, end)), cut: true };
}

/** A fence longer than any run of backticks in the text, so the output cannot close it. */
function fence(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(Math.max(3, longest + 1));
}

/**
 * The one message a commit's failed checks become: each failed check's name and conclusion,
 * its output's title and summary, and the last 4 KiB of its output's text (marked when cut),
 * after what the agent should do.
 *
 * @example failureMessage("3f2a9c1d…", runs).split("\n")[0] // "CI failed on 3f2a9c1: fix it and push."
 */
export function failureMessage(sha: string, runs: readonly CheckRun[]): string {
  const failed = failedRuns(runs);
  const parts = [
    `CI failed on ${sha.slice(0, 7)}: fix it and push. ${failed.length === 1 ? "This check" : `These ${failed.length} checks`} failed on the head of the task's branch; the pull request is marked ready only once every check passes.`,
  ];
  for (const run of failed.slice(0, MESSAGE_CHECKS)) {
    const lines = [`## ${run.name}: ${run.conclusion}`];
    if (run.html_url) lines.push(run.html_url);
    if (run.output.title) lines.push(`**${run.output.title.trim()}**`);
    if (run.output.summary?.trim()) {
      const summary = headWithin(run.output.summary.trim(), SUMMARY_BYTES);
      lines.push(summary.cut ? `${summary.text}\n… (summary cut)` : summary.text);
    }
    if (run.output.text?.trim()) {
      const tail = tailWithin(run.output.text, OUTPUT_TAIL_BYTES);
      const marker = fence(tail.text);
      lines.push(
        tail.cut ? `The output's last ${OUTPUT_TAIL_BYTES / 1024} KiB (cut: the earlier part is left out):` : "The output:",
        `${marker}\n${tail.text.replace(/\n+$/, "")}\n${marker}`,
      );
    }
    parts.push(lines.join("\n"));
  }
  if (failed.length > MESSAGE_CHECKS) {
    parts.push(
      `Also failed: ${failed
        .slice(MESSAGE_CHECKS)
        .map((run) => `${run.name} (${run.conclusion})`)
        .join(", ")}.`,
    );
  }
  return parts.join("\n\n");
}

/** A check run as the task's page shows it. */
export interface CheckRunSummary {
  name: string;
  status: string;
  conclusion: string | null;
  url: string | null;
}

/** What `tasks.checks` holds: the branch head's checks when they were last read. */
export interface ChecksSummary {
  head_sha: string;
  state: ChecksState;
  runs: CheckRunSummary[];
  /** ISO-8601: when they were read. */
  updated_at: string;
  /** The head whose failure the agent was told of: it is never told twice of one commit. */
  notified_sha?: string;
}

/**
 * The summary of a commit's checks, keeping `notified_sha` from the stored one.
 *
 * @example checksSummary(sha, runs, new Date(), stored.notified_sha)
 */
export function checksSummary(sha: string, runs: readonly CheckRun[], at: Date, notifiedSha?: string | null): ChecksSummary {
  const shown = latestRuns(runs)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((run) => ({ name: run.name, status: run.status, conclusion: run.conclusion, url: run.html_url }));
  return { head_sha: sha, state: checksState(runs), runs: shown, updated_at: at.toISOString(), ...(notifiedSha ? { notified_sha: notifiedSha } : {}) };
}

/** The stored summary, or null for a task whose checks were never read (`{}`). */
export function storedChecks(value: unknown): ChecksSummary | null {
  if (!value || typeof value !== "object") return null;
  const stored = value as Partial<ChecksSummary>;
  if (typeof stored.head_sha !== "string" || typeof stored.state !== "string" || !Array.isArray(stored.runs)) return null;
  return stored as ChecksSummary;
}

/** What a task does with a commit's checks just read. */
export interface ChecksDecision {
  /** Send the agent the failure message (and remember the commit as notified). */
  notify: boolean;
  /** The task awaited its checks and they passed: its pull request is marked ready, the task in review. */
  ready: boolean;
  /** The task stops awaiting its checks (they passed, or failed and the agent is told). */
  stopAwaiting: boolean;
}

/**
 * The task's move on its branch head's checks: failing tells the agent once per commit (never
 * a closed task, which a message would reopen, nor a best-of-N attempt, which its checks
 * judge as they are); passing while awaiting marks ready; pending or none changes nothing.
 *
 * @example checksDecision({ state: "failing", sha, notifiedSha: null, awaiting: true, closed: false }) // { notify: true, ready: false, stopAwaiting: true }
 */
export function checksDecision(input: {
  state: ChecksState;
  sha: string;
  notifiedSha: string | null;
  awaiting: boolean;
  closed: boolean;
  attempt?: boolean;
}): ChecksDecision {
  const notify = input.state === "failing" && input.notifiedSha !== input.sha && !input.closed && !input.attempt;
  const ready = input.state === "passing" && input.awaiting && !input.closed;
  return { notify, ready, stopAwaiting: input.awaiting && (ready || input.state === "failing") };
}

/** The task's checks as the API shows them (without whom it notified), or null before any. */
export function shownChecks(value: unknown): Omit<ChecksSummary, "notified_sha"> | null {
  const stored = storedChecks(value);
  if (!stored) return null;
  return { head_sha: stored.head_sha, state: stored.state, runs: stored.runs, updated_at: stored.updated_at };
}
