import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { taskQueue } from "../../bindings/objects";
import type { Database } from "../../core/db/client";
import { agents, guildRepositories } from "../../core/db/schema";
import type { TaskMessageRow, TaskRow, TaskRunRow } from "../../core/db/tasks";
import { createTask, findTask, listTasks } from "../../core/db/tasks";
import { logEvent } from "../../core/output/log";
import { platformRedactor } from "../../core/output/redaction";
import { taskBranch } from "../../core/tasks/key";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { notFound, validationFailed } from "../http/errors";
import { listPage } from "../http/pagination";
import { findGuild } from "./guilds";
import { Task, TaskCreate, TaskListQuery, TaskPage } from "./tasks.schema";

/**
 * Tasks (TASK-001..008): filed for a coding agent of the guild in one of its repositories,
 * started by the organisation's queue (durable-objects/task/queue-object.ts) oldest first
 * as run slots free up. The API files and lists them; runs are the task object's.
 */

const iso = (at: Date | null) => (at ? at.toISOString() : null);

export const toTask = (row: TaskRow) => ({
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
  pull_request: row.pullRequestNumber !== null && row.pullRequestUrl !== null ? { number: row.pullRequestNumber, url: row.pullRequestUrl } : null,
  last_run_ended_at: iso(row.lastRunEndedAt),
  closed_at: iso(row.closedAt),
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
export async function ownedTask(db: Database, organisationId: string, id: string): Promise<TaskRow> {
  if (!isUuid(id)) throw notFound("task");
  const task = await findTask(db, organisationId, id);
  if (!task) throw notFound("task");
  return task;
}

const fieldError = (field: string, message: string) => validationFailed([{ field, message }]);

/** The guild's agent named in the body: it must code (its `coding` flag), or no run could use the repository. */
async function codingAgent(db: Database, guildId: string, agentId: string) {
  const [agent] = await db
    .select({ id: agents.id, coding: agents.coding, archivedAt: agents.archivedAt })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.guildId, guildId)))
    .limit(1);
  if (!agent) throw fieldError("agent_id", "no such agent in the guild");
  if (agent.archivedAt) throw fieldError("agent_id", "the agent is archived");
  if (!agent.coding) throw fieldError("agent_id", "the agent does not have coding enabled");
  return agent;
}

async function guildRepository(db: Database, guildId: string, repositoryId: string) {
  const [repository] = await db
    .select()
    .from(guildRepositories)
    .where(and(eq(guildRepositories.id, repositoryId), eq(guildRepositories.guildId, guildId)))
    .limit(1);
  if (!repository) throw fieldError("repository_id", "no such repository in the guild");
  return repository;
}

/**
 * Tells the organisation's queue to plan now (a task became due). The task is stored by
 * then: a queue that cannot be reached is logged, not the request's failure; its next wake
 * (another filing, a run's end) plans the task.
 */
export async function wakeQueue(env: AppEnv["Bindings"], organisationId: string): Promise<void> {
  try {
    await taskQueue(env, organisationId).wake(organisationId);
  } catch (error) {
    logEvent("warn", { operation: "task.queue_wake", organisation_id: organisationId, error }, platformRedactor(env));
  }
}

/** `/api/guilds/:id/tasks`, mounted beside the guild routes. */
export const guildTaskRoutes = new Hono<AppEnv>()
  .post(
    "/:id/tasks",
    operation({
      operationId: "createTask",
      summary: "File a task for a coding agent of the guild in one of its repositories; the queue starts it when a run slot is free",
      tag: "Tasks",
      responses: { 201: ok("The task, queued", Task) },
      notFound: "guild",
      body: true,
      invalid: "agent_id not a coding agent of the guild, repository_id not a repository of the guild",
    }),
    pathId("guild"),
    jsonBody(TaskCreate),
    async (c) => {
      const db = c.get("db");
      const organisationId = c.get("organisationId");
      const guild = await findGuild(db, organisationId, c.req.valid("param").id);
      const body = c.req.valid("json");
      await codingAgent(db, guild.id, body.agent_id);
      const repository = await guildRepository(db, guild.id, body.repository_id);
      const task = await createTask(db, {
        organisationId,
        guildId: guild.id,
        agentId: body.agent_id,
        repositoryId: repository.id,
        fullName: repository.fullName,
        title: body.title,
        description: body.description,
        baseBranch: body.base_branch ?? repository.defaultBranch,
        allowForcePush: body.allow_force_push,
      });
      // The repository was removed between the read and the insert.
      if (!task) throw fieldError("repository_id", "no such repository in the guild");
      await wakeQueue(c.env, organisationId);
      return c.json(toTask(task), 201);
    },
  )
  .get(
    "/:id/tasks",
    operation({
      operationId: "listGuildTasks",
      summary: "The guild's tasks, newest first, by status",
      tag: "Tasks",
      responses: { 200: ok("A page of tasks", TaskPage) },
      notFound: "guild",
      query: true,
    }),
    pathId("guild"),
    query(TaskListQuery),
    async (c) => {
      const db = c.get("db");
      const guild = await findGuild(db, c.get("organisationId"), c.req.valid("param").id);
      const params = c.req.valid("query");
      const page = listPage(params);
      const rows = await listTasks(db, guild.id, params.status ?? [], page);
      return c.json(page.result(rows, toTask));
    },
  );
