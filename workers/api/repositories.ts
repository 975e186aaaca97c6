import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { Database } from "../../core/db/client";
import { guildRepositories, guilds } from "../../core/db/schema";
import { repositoryVolumesPrefix } from "../../core/tasks/key";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId } from "../http/contract";
import { notFound } from "../http/errors";
import { requireTaskAgent, toRepository } from "./guild-repositories";
import { Repository, RepositoryPatch } from "./repositories.schema";

/** The organisation's repository with this id (another organisation's is 404 repository.not_found). */
async function ownedRepository(db: Database, organisationId: string, id: string) {
  const [found] = await db
    .select({ repository: guildRepositories })
    .from(guildRepositories)
    .innerJoin(guilds, eq(guilds.id, guildRepositories.guildId))
    .where(and(eq(guildRepositories.id, id), eq(guilds.organisationId, organisationId)))
    .limit(1);
  if (!found) throw notFound("repository");
  return found.repository;
}

/** `/api/repositories/:id`. */
export const repositoryRoutes = new Hono<AppEnv>()
  .patch(
    "/:id",
    operation({
      operationId: "updateRepository",
      summary: "Set what issues of the repository do: the coding agent they file tasks for and the label that files one",
      tag: "Repositories",
      responses: { 200: ok("The repository", Repository) },
      notFound: "repository",
      body: true,
      invalid: "task_agent_id not a coding agent of the repository's guild (or archived), trigger_label not a label name",
    }),
    pathId("repository"),
    jsonBody(RepositoryPatch),
    async (c) => {
      const db = c.get("db");
      const repository = await ownedRepository(db, c.get("organisationId"), c.req.valid("param").id);
      const body = c.req.valid("json");
      if (body.task_agent_id !== undefined) await requireTaskAgent(db, repository.guildId, body.task_agent_id);
      const change = {
        ...(body.task_agent_id !== undefined ? { taskAgentId: body.task_agent_id } : {}),
        ...(body.trigger_label !== undefined ? { triggerLabel: body.trigger_label } : {}),
      };
      if (!Object.keys(change).length) return c.json(toRepository(repository, c.env.GITHUB_GIT_URL));
      const [row] = await db.update(guildRepositories).set(change).where(eq(guildRepositories.id, repository.id)).returning();
      // Removed between the read and the update.
      if (!row) throw notFound("repository");
      return c.json(toRepository(row, c.env.GITHUB_GIT_URL));
    },
  )
  .delete(
    "/:id",
    operation({
      operationId: "deleteRepository",
      summary: "Remove a repository from its guild (clones already in agents' sandboxes stay)",
      tag: "Repositories",
      responses: { 204: ok("Removed") },
      notFound: "repository",
    }),
    pathId("repository"),
    async (c) => {
      const db = c.get("db");
      const repository = await ownedRepository(db, c.get("organisationId"), c.req.valid("param").id);
      await db.delete(guildRepositories).where(eq(guildRepositories.id, repository.id));
      // Its tasks went with it (cascade), and no sweep finds their volumes now: those and its
      // seed (decision 0037) hold the repository's content, so they go too.
      await deleteAll(c.env.SANDBOX_HOMES, repositoryVolumesPrefix(repository.id));
      return c.body(null, 204);
    },
  );

/** Deletes every object under `prefix`, a listing page at a time. */
async function deleteAll(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
