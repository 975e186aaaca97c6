import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { Database } from "../../core/db/client";
import { agents, guildRepositories } from "../../core/db/schema";
import { createTaskWithAttempts } from "../../core/db/task-attempts";
import { createTask, listTasks } from "../../core/db/task-rows";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { validationFailed } from "../http/errors";
import { listPage } from "../http/pagination";
import { findGuild } from "./guilds";
import { toTask, wakeQueue } from "./tasks";
import { Task, TaskCreate, TaskListQuery, TaskPage } from "./tasks.schema";

/**
 * Tasks (TASK-001..008): filed for a coding agent of the guild in one of its repositories,
 * started by the organisation's queue (durable-objects/task/queue-object.ts) oldest first
 * as run slots free up. The API files and lists them; runs are the task object's.
 */

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

/** `/api/guilds/:id/tasks`, mounted beside the guild routes. */
export const guildTaskRoutes = new Hono<AppEnv>()
  .post(
    "/:id/tasks",
    operation({
      operationId: "createTask",
      summary:
        "File a task for a coding agent of the guild in one of its repositories; the queue starts it when a run slot is free (with `attempts` 2..4, that many attempts side by side)",
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
      const filing = {
        organisationId,
        guildId: guild.id,
        agentId: body.agent_id,
        repositoryId: repository.id,
        fullName: repository.fullName,
        title: body.title,
        description: body.description,
        baseBranch: body.base_branch ?? repository.defaultBranch,
        allowForcePush: body.allow_force_push,
        maxCostUsd: body.max_cost_usd ?? null,
      };
      // Best of N: the parent and its attempts in one statement (core/db/task-attempts.ts).
      const task = body.attempts > 1 ? await createTaskWithAttempts(db, filing, body.attempts) : await createTask(db, filing);
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
      summary: "The guild's tasks, newest first, by status (a best-of-N task's attempts are read through it)",
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
