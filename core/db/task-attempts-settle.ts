/**
 * Best of N on the forge: when an attempt's status settles, its parent looks at every attempt
 * (core/tasks/attempts.ts pickWinner) and, once all are closed and their checks concluded,
 * either opens the pull request from the winner's branch (ready: its checks pass), or says that
 * no attempt passed and keeps every branch. When the parent closes, the branches of the
 * attempts that lost are deleted. The parent's move out of `running` is a conditional update
 * (claimSettlement), so two attempts ending at the same instant open one pull request. The
 * forge is given (bindings/task-attempts.ts makes it from the App, the task object from its
 * run's token).
 */
import { eq } from "drizzle-orm";
import type { ForgePlugin } from "../github/forge-plugin";
import { describeError, logEvent } from "../output/log";
import { type AttemptLine, checksOf, type Diffstat, noWinnerMessage, pickWinner, type Verdict, winnerBody } from "../tasks/attempts";
import { taskBranch, wipBranch } from "../tasks/key";
import { CANCELLABLE } from "../tasks/transitions";
import type { Database } from "./client";
import { guildRepositories, tasks } from "./schema";
import { attemptExtras, claimSettlement, diffstatOf, listAttempts, openAttempts, recordDiffstat, setWinner, winnerOf } from "./task-attempts";
import { insertTaskMessage, moveTask, type TaskRow } from "./task-rows";

/** The forge as best of N uses it for one repository; null when it has no installation token. */
export interface AttemptsForge {
  /** The repository's `owner/name`. */
  fullName: string;
  plugin: ForgePlugin;
  /** The branch's lines added and deleted against the base; null when the forge lacks one of them. */
  diffstat(base: string, head: string): Promise<Diffstat | null>;
  /** The branch's head commit, or null when it does not exist. */
  branchHead(branch: string): Promise<string | null>;
}

/** The commit `tasks.checks` was recorded for. */
const checkedHead = (stored: unknown) => (stored && typeof stored === "object" ? (stored as { head_sha?: unknown }).head_sha : undefined);

const log = (operation: string, taskId: string, error: unknown) => logEvent("warn", { operation, task_id: taskId, ...describeError(error) });

/**
 * After an attempt's status settled: the parent's verdict, acted on by the one evaluation that
 * moves it out of `running`. Returns the verdict (wait while an attempt is open or its checks
 * pending). Called again when an attempt's checks conclude (the checks' handler may call it).
 */
export async function settleParent(db: Database, forge: AttemptsForge | null, parentId: string): Promise<Verdict | null> {
  const [parent] = await db.select().from(tasks).where(eq(tasks.id, parentId));
  if (parent?.status !== "running") return null;
  const attempts = await listAttempts(db, parentId);
  const lines = await attemptLines(db, forge, parent, attempts);
  const [repository] = await db
    .select({ checksSeenAt: guildRepositories.checksSeenAt })
    .from(guildRepositories)
    .where(eq(guildRepositories.id, parent.repositoryId));
  const verdict = pickWinner(lines, repository?.checksSeenAt != null);
  if (verdict.kind === "wait") return verdict;
  if (verdict.kind === "none") {
    if (await claimSettlement(db, parentId, "waiting")) await insertTaskMessage(db, parentId, noWinnerMessage(lines));
    return verdict;
  }
  const claimed = await claimSettlement(db, parentId, "in_review");
  if (!claimed) return verdict;
  const winner = attempts.find((a) => a.attempt === verdict.attempt)!;
  try {
    if (!forge) throw new Error("the repository has no installation of the App: no pull request can be opened");
    const extras = await attemptExtras(db, [winner.id]);
    const summary = typeof extras.get(winner.id)?.report?.summary === "string" ? (extras.get(winner.id)!.report!.summary as string) : "";
    const { fullName } = forge;
    const opened = await forge.plugin.openDraftPR({
      fullName,
      head: taskBranch(winner.key),
      base: parent.baseBranch,
      title: `${parent.key}: ${parent.title}`,
      body: winnerBody({ summary, issueNumber: parent.issueNumber, lines, winner: verdict.attempt }),
    });
    await setWinner(db, parent, winner.id, opened);
    // Its checks pass: ready for review at once.
    await forge.plugin.markReady({ fullName, number: opened.number, nodeId: opened.nodeId });
  } catch (error) {
    log("task.attempts_pull_request", parentId, error);
    if (await moveTask(db, parentId, ["in_review"], "waiting")) {
      await insertTaskMessage(db, parentId, `${verdict.reason}, but its pull request could not be opened: ${describeError(error).message}`);
    }
  }
  return verdict;
}

/** Each attempt as the picking and the tables read it; its diffstat asked of the forge afresh and kept on its report. */
async function attemptLines(db: Database, forge: AttemptsForge | null, parent: TaskRow, attempts: readonly TaskRow[]): Promise<AttemptLine[]> {
  const extras = await attemptExtras(
    db,
    attempts.map((a) => a.id),
  );
  return Promise.all(
    attempts.map(async (a) => {
      let diff = diffstatOf(extras.get(a.id)?.report ?? null);
      let checks = checksOf(a.checks);
      if (forge) {
        try {
          const [stat, head] = await Promise.all([forge.diffstat(parent.baseBranch, taskBranch(a.key)), forge.branchHead(taskBranch(a.key))]);
          diff = stat;
          await recordDiffstat(db, a.id, diff);
          // Checks recorded for an older commit say nothing of the branch as it is: wait for its own.
          if (checks !== "none" && head !== null && checkedHead(a.checks) !== head) checks = "pending";
        } catch (error) {
          log("task.attempt_diffstat", a.id, error);
        }
      }
      return { attempt: a.attempt ?? 0, key: a.key, branch: taskBranch(a.key), status: a.status as AttemptLine["status"], checks, diff };
    }),
  );
}

/**
 * A parent closed (cancelled, marked done, its pull request merged): its open attempts are
 * cancelled, the winner closing as the parent did (`stop` ends each one's run), and the branches of the attempts that lost — task
 * and WIP — are deleted. Without a winner every branch is kept. Returns the branches deleted.
 */
export async function closeParent(db: Database, forge: AttemptsForge | null, parent: TaskRow, stop: (taskId: string) => Promise<unknown>): Promise<string[]> {
  if (parent.attempts <= 1) return [];
  for (const attempt of await openAttempts(db, parent.id)) {
    // The winner closes as its parent does (done, merged: completed); the others are cancelled.
    const status = attempt.pullRequestNumber !== null && parent.status === "completed" ? "completed" : "cancelled";
    if (await moveTask(db, attempt.id, CANCELLABLE, status, { closedAt: "now", resumeAt: null })) {
      await stop(attempt.id).catch((error: unknown) => log("task.attempt_stop", attempt.id, error));
    }
  }
  const winner = await winnerOf(db, parent.id);
  if (!winner || !forge) return [];
  const deleted: string[] = [];
  for (const attempt of await listAttempts(db, parent.id)) {
    if (attempt.id === winner.id) continue;
    for (const branch of [taskBranch(attempt.key), wipBranch(attempt.key)]) {
      const gone = await forge.plugin.deleteBranch({ fullName: forge.fullName, branch }).catch((error: unknown) => {
        log("task.attempt_branch_delete", attempt.id, error);
        return false;
      });
      if (gone) deleted.push(branch);
    }
  }
  return deleted;
}
