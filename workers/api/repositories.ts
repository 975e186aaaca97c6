import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { guildRepositories, guilds } from "../../core/db/schema";
import type { AppEnv } from "../http/context";
import { ok, operation, pathId } from "../http/contract";
import { notFound } from "../http/errors";

/** `/api/repositories/:id`. */
export const repositoryRoutes = new Hono<AppEnv>().delete(
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
    const { id } = c.req.valid("param");
    const db = c.get("db");
    const [found] = await db
      .select({ id: guildRepositories.id })
      .from(guildRepositories)
      .innerJoin(guilds, eq(guilds.id, guildRepositories.guildId))
      .where(and(eq(guildRepositories.id, id), eq(guilds.organisationId, c.get("organisationId"))))
      .limit(1);
    if (!found) throw notFound("repository");
    await db.delete(guildRepositories).where(eq(guildRepositories.id, found.id));
    return c.body(null, 204);
  },
);
