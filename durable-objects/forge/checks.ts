/**
 * CI reaches the task (ISSUE-33): a check suite or check run completing on the head of a
 * task's branch (`factory/task/<KEY>`, an attempt's `factory/task/<KEY>/a<i>`) in a guild
 * repository of the organisation. All the commit's check runs are read (one suite completing
 * while another still runs is pending), stored on the task and shown on its page; a failure
 * becomes one message to the agent per commit; a task waiting for its checks has its pull
 * request marked ready when they pass (apply-checks.ts). A best-of-N attempt is not told: its
 * concluded checks settle its parent again (bindings/task-attempts.ts). A result for a commit
 * that is no longer the branch's head is recorded as ignored.
 */
import { checksReader } from "../../bindings/checks";
import type { Env } from "../../bindings/env";
import { forgePlugin, githubApp } from "../../bindings/github";
import { taskObject } from "../../bindings/objects";
import { settleParentOf } from "../../bindings/task-attempts";
import type { Database } from "../../core/db/client";
import { markChecksSeen, type TaskWithRepository, tasksOfPulls, tasksOnBranch } from "../../core/db/task-checks";
import type { ChecksReader } from "../../core/github/checks-api";
import type { ChecksEvent, DeliveryResult, ForgeDelivery } from "../../core/github/webhook-event";
import { TASK_BRANCH_PREFIX, taskBranch } from "../../core/tasks/key";
import { applyChecks, type ChecksEffects } from "../task/apply-checks";

/** What acting on checks needs (the dispatcher's ActDeps has it). */
export interface ChecksDeps {
  env: Env;
  db: Database;
  now(): number;
  /**
   * Where the checks are read; the repository's installation through the Checks API when
   * absent (a test's reader says which check runs a commit has, where no CI runs).
   */
  checks?: (target: TaskWithRepository) => Promise<ChecksReader | null>;
}

/** The task key a branch names: `factory/task/APP-7` → `APP-7`, an attempt's `factory/task/APP-7/a2` → `APP-7/a2`. */
export function keyOfBranch(branch: string | null): string | null {
  if (!branch?.startsWith(TASK_BRANCH_PREFIX)) return null;
  const key = branch.slice(TASK_BRANCH_PREFIX.length);
  return /^[A-Z0-9]+-\d+(?:\/a\d+)?$/.test(key) ? key : null;
}

export async function actOnChecks(deps: ChecksDeps, delivery: ForgeDelivery): Promise<DeliveryResult> {
  const event = delivery.event;
  if (event.kind !== "checks") return { outcome: "ignored", detail: `not a checks event: ${event.kind}` };
  const targets = await tasksOf(deps, delivery.organisationId, event);
  if (targets.length === 0)
    return { outcome: "ignored", detail: `no task's branch: ${event.headBranch ?? `pull requests ${event.pullNumbers.join(", ") || "none"}`}` };
  const details: string[] = [];
  let accepted = false;
  for (const target of targets) {
    const result = await actOnTask(deps, target, event);
    accepted ||= result.outcome === "accepted";
    details.push(result.detail);
  }
  return { outcome: accepted ? "accepted" : "ignored", detail: details.join("; ") };
}

/** The tasks the event's branch names (or, when GitHub names no branch, whose pull request it names). */
async function tasksOf(deps: ChecksDeps, organisationId: string, event: ChecksEvent): Promise<TaskWithRepository[]> {
  const key = keyOfBranch(event.headBranch);
  if (key) return tasksOnBranch(deps.db, organisationId, event.repository, key);
  if (event.headBranch === null) return tasksOfPulls(deps.db, organisationId, event.repository, event.pullNumbers);
  return [];
}

async function actOnTask(deps: ChecksDeps, target: TaskWithRepository, event: ChecksEvent): Promise<DeliveryResult> {
  const { task } = target;
  const now = new Date(deps.now());
  // The repository has checks: from now on its tasks' pull requests wait for them.
  if (target.checksSeenAt === null) await markChecksSeen(deps.db, task.repositoryId, now);
  const reader = await (deps.checks ?? ((t) => checksReader(deps.env, t)))(target);
  if (!reader) return { outcome: "ignored", detail: `${task.key}: the repository has no installation to read its checks with` };
  const branch = taskBranch(task.key);
  const head = await reader.branchHead(target.fullName, branch);
  if (head !== event.headSha) return { outcome: "ignored", detail: `${task.key}: ${event.headSha.slice(0, 7)} is not the branch's head` };
  const runs = await reader.listCheckRuns(target.fullName, head);
  const applied = await applyChecks(checksEffects(deps, target), target, { sha: head, runs });
  if (!applied) return { outcome: "ignored", detail: `${task.key}: the task is gone` };
  // Best of N: an attempt's concluded checks may be what its parent's verdict waited for.
  if (task.parentTaskId !== null && (applied.summary.state === "passing" || applied.summary.state === "failing")) {
    await settleParentOf(deps.env, deps.db, task.id);
  }
  return { outcome: "accepted", detail: applied.detail };
}

/** What acting on checks does outside the row: the task object's stream, the pull request. */
export function checksEffects(deps: ChecksDeps, target: TaskWithRepository): ChecksEffects {
  return {
    env: deps.env,
    db: deps.db,
    now: deps.now,
    forge: async () => {
      const app = githubApp(deps.env);
      if (!app || target.installationId === null) return null;
      const { token } = await app.mintRepositoryToken(target.installationId, target.fullName);
      return forgePlugin(deps.env, token);
    },
    publish: (checks, status) => taskObject(deps.env, target.task.id).checksRead(target.task.id, checks, status),
  };
}
