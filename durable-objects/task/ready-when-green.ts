/**
 * Ready only when green (ISSUE-33, `runs.readyRequiresChecks`): when a run completes with a
 * pull request in a repository that has checks, the branch head's checks decide. Passing: ready
 * at once, as without checks. Failing: the failure goes to the agent, which queues the task
 * again; the pull request stays a draft. Pending: the task waits for them (`waiting` with
 * `awaiting_checks`) and forge/checks.ts marks it ready when they pass. A repository without
 * checks (none seen, none on the head) or a task without an installation is ready at once.
 */
import { awaitChecks, markChecksSeen, type TaskWithRepository, taskWithRepository } from "../../core/db/task-checks";
import type { CheckRun, ChecksReader } from "../../core/github/checks-api";
import { checksState } from "../../core/tasks/checks";
import { taskBranch } from "../../core/tasks/key";
import { applyChecks, type ChecksEffects } from "./apply-checks";

export interface ReadyWhenGreenInput extends ChecksEffects {
  taskId: string;
  /** The organisation's runs.readyRequiresChecks. */
  requiresChecks: boolean;
  /** The checks of the task's repository; null when it has none to read (no installation, no App). */
  reader(target: TaskWithRepository): Promise<ChecksReader | null>;
  log(operation: string, error: unknown): void;
}

/**
 * Whether the run's finalizing marks the pull request ready now, as it always did (true), or
 * the checks decided otherwise (false: the task waits for them, or was sent their failure).
 * Call it with the task in_review after a completed run.
 */
export async function readyWhenGreen(input: ReadyWhenGreenInput): Promise<boolean> {
  if (!input.requiresChecks) return true;
  const target = await taskWithRepository(input.db, input.taskId);
  if (!target) return true;
  const seen = target.checksSeenAt !== null;
  const branch = taskBranch(target.task.key);
  const read = async (reader: ChecksReader): Promise<{ sha: string; runs: CheckRun[] } | null> => {
    const sha = await reader.branchHead(target.fullName, branch);
    return sha ? { sha, runs: await reader.listCheckRuns(target.fullName, sha) } : null;
  };
  let reader: ChecksReader | null = null;
  let first: { sha: string; runs: CheckRun[] } | null = null;
  try {
    reader = await input.reader(target);
    if (!reader) return true;
    first = await read(reader);
  } catch (error) {
    // Checks that cannot be read hold a repository known to have them; any other is ready as before.
    input.log("task.checks_read", error);
    if (!seen) return true;
  }
  if (first && first.runs.length > 0 && !seen) await markChecksSeen(input.db, target.task.repositoryId, new Date(input.now()));
  else if (!seen) return true;
  const state = first ? checksState(first.runs) : "pending";
  if (first && (state === "passing" || state === "failing")) {
    // A failure at completion is told again: the agent completed with it standing.
    await applyChecks(input, target, { ...first, remind: true });
    return state === "passing";
  }
  // Waiting first, then reading again: a check completing meanwhile finds the task awaiting it.
  if (!(await awaitChecks(input.db, input.taskId, new Date(input.now())))) return false;
  await input.publish({ ...pendingChecks(first, input.now()), awaiting_checks: true }, "waiting").catch(() => {});
  try {
    const again = reader ? await read(reader) : null;
    if (again) await applyChecks(input, { ...target, task: { ...target.task, status: "waiting" } }, again);
  } catch (error) {
    // The next check to complete decides.
    input.log("task.checks_read", error);
  }
  return false;
}

/** What the page shows while the first reading is all there is. */
function pendingChecks(first: { sha: string; runs: CheckRun[] } | null, now: number) {
  return {
    head_sha: first?.sha ?? "",
    state: "pending" as const,
    runs: (first?.runs ?? []).map((run) => ({ name: run.name, status: run.status, conclusion: run.conclusion, url: run.html_url })),
    updated_at: new Date(now).toISOString(),
  };
}
