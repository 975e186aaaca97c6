import { Hono } from "hono";
import { taskObject } from "../../bindings/objects";
import { sendTaskMessage, wakeQueue } from "../../bindings/task-messages";
import type { Database } from "../../core/db/client";
import {
  findTask,
  listTaskMessages,
  listTaskRuns,
  moveTask,
  type TaskMessageRow,
  type TaskRunRow,
  type TaskView,
  taskRunsSummary,
} from "../../core/db/task-rows";
import { shownChecks } from "../../core/tasks/checks";
import { taskBranch } from "../../core/tasks/key";
import type { TaskStatus } from "../../core/tasks/outcome";
import { CANCELLABLE, DONE_FROM } from "../../core/tasks/transitions";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { eventStream, failure, jsonBody, ok, operation, pathId, query } from "../http/contract";
import { notFound, settle } from "../http/errors";
import { ListQuery } from "../http/page.schema";
import { listPage } from "../http/pagination";
import { TaskEvent } from "./events.schema";
import { attemptCards, closeBestOf, messageTask } from "./task-attempts";
import { updateTaskBudget } from "./task-budget";
import { Task, TaskDetail, TaskMessage, TaskMessageCreate, TaskMessagePage, TaskRunPage, TaskUpdate } from "./tasks.schema";

/**
 * `/api/tasks/:id`: a task, its runs and messages, and what a person does to it: send a
 * message (TASK-019), cancel, mark done (TASK-030), reset its workspace (TASK-038), follow
 * its events. Status moves are conditional (core/db/task-rows.ts moveTask), so a person's action
 * and a run's end never both win.
 */

/** Waking the queue lives beside sending a message (bindings/task-messages.ts); the routes import it from here. */
export { wakeQueue } from "../../bindings/task-messages";

const iso = (at: Date | null) => (at ? at.toISOString() : null);

export const toTask = (row: TaskView) => ({
  id: row.id,
  key: row.key,
  number: row.number,
  organisation_id: row.organisationId,
  guild_id: row.guildId,
  agent_id: row.agentId,
  repository_id: row.repositoryId,
  title: row.title,
  description: row.description,
  base_branch: row.baseBranch,
  branch: taskBranch(row.key),
  status: row.status,
  allow_force_push: row.allowForcePush,
  resume_at: iso(row.resumeAt),
  queued_at: row.queuedAt.toISOString(),
  auto_resumes: row.autoResumes,
  max_cost_usd: row.maxCostUsd === null ? null : Number(row.maxCostUsd),
  spend_usd: Number(row.spendUsd),
  pull_request: row.pullRequestNumber !== null && row.pullRequestUrl !== null ? { number: row.pullRequestNumber, url: row.pullRequestUrl } : null,
  checks: shownChecks(row.checks),
  awaiting_checks: row.awaitingChecks,
  last_run_ended_at: iso(row.lastRunEndedAt),
  closed_at: iso(row.closedAt),
  best_of: row.attempts,
  parent_task_id: row.parentTaskId,
  attempt: row.attempt,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

export const toTaskRun = (row: TaskRunRow) => ({
  id: row.id,
  task_id: row.taskId,
  run_id: row.runId,
  outcome: row.outcome,
  connected_at: iso(row.connectedAt),
  ended_at: iso(row.endedAt),
  workspace: row.workspace as Record<string, unknown>,
  report: row.report as Record<string, unknown>,
  created_at: row.createdAt.toISOString(),
});

export const toTaskMessage = (row: TaskMessageRow) => ({
  id: row.id,
  task_id: row.taskId,
  content: row.content,
  delivered_at: iso(row.deliveredAt),
  delivered_run_id: row.deliveredRunId,
  created_at: row.createdAt.toISOString(),
});

/** The caller's task with this id, or 404 task.not_found (another organisation's too). */
export async function ownedTask(db: Database, organisationId: string, id: string): Promise<TaskView> {
  if (!isUuid(id)) throw notFound("task");
  const task = await findTask(db, organisationId, id);
  if (!task) throw notFound("task");
  return task;
}

/** The task as it is now, after a move (its own, or one someone else made first). */
const current = async (db: Database, task: TaskView) => (await findTask(db, task.organisationId, task.id)) ?? task;

/**
 * Cancel and done (TASK-030): the task closes as `status` when its status is one of `from`,
 * and its active run stops; otherwise it is answered as it is.
 */
async function close(env: AppEnv["Bindings"], db: Database, task: TaskView, from: readonly TaskStatus[], status: "cancelled" | "completed"): Promise<TaskView> {
  const moved = await moveTask(db, task.id, from, status, { closedAt: "now", resumeAt: null });
  if (moved) await taskObject(env, task.id).stop(task.id);
  // Best of N: the parent's open attempts close with it, and the losers' branches go (task-attempts.ts).
  if (moved && moved.attempts > 1) await closeBestOf(env, db, moved);
  return current(db, task);
}

export const taskRoutes = new Hono<AppEnv>()
  .get(
    "/:id",
    operation({
      operationId: "getTask",
      summary: "A task with its runs' summary and its pull request",
      tag: "Tasks",
      responses: { 200: ok("The task", TaskDetail) },
      notFound: "task",
    }),
    pathId("task"),
    async (c) => {
      const db = c.get("db");
      const task = await ownedTask(db, c.get("organisationId"), c.req.valid("param").id);
      const [runs, attempts] = await Promise.all([taskRunsSummary(db, task.id), attemptCards(db, task)]);
      return c.json({
        ...toTask(task),
        runs: { total: runs.total, active: runs.active && toTaskRun(runs.active), latest: runs.latest && toTaskRun(runs.latest) },
        attempts,
      });
    },
  )
  .patch(
    "/:id",
    operation({
      operationId: "updateTask",
      summary:
        "Change the task: its budget (max_cost_usd). Raising it over the spend queues a task its budget stopped again; lowering it under the spend stops a running task's run at its next model call",
      tag: "Tasks",
      responses: { 200: ok("The task", Task) },
      notFound: "task",
      body: true,
    }),
    pathId("task"),
    jsonBody(TaskUpdate),
    async (c) => {
      const db = c.get("db");
      const task = await ownedTask(db, c.get("organisationId"), c.req.valid("param").id);
      const body = c.req.valid("json");
      if (body.max_cost_usd !== undefined && (await updateTaskBudget(c.env, db, task, body.max_cost_usd)).requeued) {
        await wakeQueue(c.env, task.organisationId);
      }
      return c.json(toTask(await current(db, task)));
    },
  )
  .get(
    "/:id/runs",
    operation({
      operationId: "listTaskRuns",
      summary: "The task's runs, newest first; each run's transcript is GET /api/runs/:run_id",
      tag: "Tasks",
      responses: { 200: ok("A page of task runs", TaskRunPage) },
      notFound: "task",
      query: true,
    }),
    pathId("task"),
    query(ListQuery),
    async (c) => {
      const db = c.get("db");
      const task = await ownedTask(db, c.get("organisationId"), c.req.valid("param").id);
      const page = listPage(c.req.valid("query"));
      return c.json(page.result(await listTaskRuns(db, task.id, page), toTaskRun));
    },
  )
  .get(
    "/:id/messages",
    operation({
      operationId: "listTaskMessages",
      summary: "The messages sent to the task's agent, newest first, with when a run delivered each",
      tag: "Tasks",
      responses: { 200: ok("A page of task messages", TaskMessagePage) },
      notFound: "task",
      query: true,
    }),
    pathId("task"),
    query(ListQuery),
    async (c) => {
      const db = c.get("db");
      const task = await ownedTask(db, c.get("organisationId"), c.req.valid("param").id);
      const page = listPage(c.req.valid("query"));
      return c.json(page.result(await listTaskMessages(db, task.id, page), toTaskMessage));
    },
  )
  .post(
    "/:id/messages",
    operation({
      operationId: "createTaskMessage",
      summary: "Send the task's agent a message: a running task takes it at its next turn boundary; a waiting, blocked or closed one is queued again",
      description: "A best-of-N task's message goes to the attempt its pull request was opened from (the message's task_id says which).",
      tag: "Tasks",
      responses: { 202: ok("The message, queued for delivery", TaskMessage) },
      notFound: "task",
      body: true,
      conflict: "task.no_winner: a best-of-N task without a picked attempt; message one of its attempts",
    }),
    pathId("task"),
    jsonBody(TaskMessageCreate),
    async (c) => {
      const db = c.get("db");
      // A best-of-N task's message goes to its winner, whose branch its pull request is (409 without one).
      const task = await messageTask(db, await ownedTask(db, c.get("organisationId"), c.req.valid("param").id));
      const message = await sendTaskMessage(c.env, db, task, c.req.valid("json").content);
      return c.json(toTaskMessage(message), 202);
    },
  )
  .post(
    "/:id/cancel",
    operation({
      operationId: "cancelTask",
      summary: "Cancel the task: its active run stops; a closed task is answered as it is",
      tag: "Tasks",
      responses: { 200: ok("The task", Task) },
      notFound: "task",
    }),
    pathId("task"),
    async (c) =>
      c.json(toTask(await close(c.env, c.get("db"), await ownedTask(c.get("db"), c.get("organisationId"), c.req.valid("param").id), CANCELLABLE, "cancelled"))),
  )
  .post(
    "/:id/done",
    operation({
      operationId: "completeTask",
      summary: "Mark the task done: its active run stops; a completed task is answered as it is",
      tag: "Tasks",
      responses: { 200: ok("The task", Task) },
      notFound: "task",
    }),
    pathId("task"),
    async (c) =>
      c.json(toTask(await close(c.env, c.get("db"), await ownedTask(c.get("db"), c.get("organisationId"), c.req.valid("param").id), DONE_FROM, "completed"))),
  )
  .post(
    "/:id/reset-workspace",
    operation({
      operationId: "resetTaskWorkspace",
      summary: "Delete the task's volume now; its next run clones the task branch afresh",
      tag: "Tasks",
      responses: { 200: ok("The task", Task) },
      notFound: "task",
      objects: true,
      conflict: "task.run_active: a run of the task is active; cancel it first",
    }),
    pathId("task"),
    async (c) => {
      const db = c.get("db");
      const task = await ownedTask(db, c.get("organisationId"), c.req.valid("param").id);
      settle(await taskObject(c.env, task.id).resetWorkspace(task.id));
      return c.json(toTask(await current(db, task)));
    },
  )
  .get(
    "/:id/events",
    operation({
      operationId: "streamTaskEvents",
      summary:
        "Server-Sent Events of the task: status changes, runs starting and ending, the draft pull request opening, its checks, and the active run's rows",
      tag: "Tasks",
      description:
        "Events: `message` per row of the task's latest run (id: the stream's sequence), `status` {status, run_id} after the replay, " +
        "`task.status`, `task.run_started`, `task.run_ended`, `task.pull_request` and `task.checks`. Each event's data has its schema (TaskEvent).",
      responses: { 200: eventStream("The task's events (TaskEvent)", TaskEvent) },
      notFound: "task",
      objects: true,
      errors: { 503: failure("The database cannot be reached (database.unavailable)") },
    }),
    pathId("task"),
    async (c) => {
      const task = await ownedTask(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      return taskObject(c.env, task.id).events(task.id, c.req.raw);
    },
  );
