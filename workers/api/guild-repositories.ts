import { and, asc, eq, isNull } from "drizzle-orm";
import { Hono } from "hono";
import type { Database } from "../../core/db/client";
import { sqlState, UNIQUE_VIOLATION } from "../../core/db/outage";
import { agents, githubConnections, guildRepositories } from "../../core/db/schema";
import { cloneUrl, repositoryFolder } from "../../core/repos/repository";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId } from "../http/contract";
import { ApiError, validationFailed } from "../http/errors";
import { githubFailure, NOT_CONFIGURED, requireGitHub } from "./github";
import { findGuild } from "./guilds";
import { Repository, RepositoryCreate, RepositoryList } from "./repositories.schema";

/**
 * A guild's repositories (OP-REPO-6): what its coding agents clone at each generation. One
 * reached through a connection is checked with GitHub when added (a token limited to it is
 * minted and dropped); a public one (no connection) is cloned anonymously.
 */

type RepositoryRow = typeof guildRepositories.$inferSelect;

export const toRepository = (row: RepositoryRow, gitBaseUrl: string | undefined) => ({
  id: row.id,
  guild_id: row.guildId,
  full_name: row.fullName,
  name: repositoryFolder(row.fullName),
  default_branch: row.defaultBranch,
  connection_id: row.connectionId,
  clone_url: cloneUrl(gitBaseUrl, row.fullName),
  task_agent_id: row.taskAgentId,
  trigger_label: row.triggerLabel,
  created_at: row.createdAt.toISOString(),
});

const fieldError = (field: string, message: string) => validationFailed([{ field, message }]);

/** The organisation's connection named in the body, connected and owning the repository's account. */
async function connectionFor(db: Database, organisationId: string, connectionId: string, fullName: string) {
  const [row] = await db
    .select()
    .from(githubConnections)
    .where(and(eq(githubConnections.id, connectionId), eq(githubConnections.organisationId, organisationId)))
    .limit(1);
  if (!row) throw fieldError("connection_id", "no such GitHub connection in the organisation");
  if (row.disconnectedAt) throw fieldError("connection_id", "the GitHub connection is disconnected");
  const owner = fullName.slice(0, fullName.indexOf("/"));
  if (owner.toLowerCase() !== row.accountLogin.toLowerCase()) {
    throw fieldError("full_name", `must be a repository of ${row.accountLogin}, the account of the connection's installation`);
  }
  return row;
}

/**
 * The repository's task agent must be a coding agent of its guild, not archived: issues file
 * tasks for it, and only a coding agent's runs can use the repository.
 */
export async function requireTaskAgent(db: Database, guildId: string, agentId: string | null): Promise<void> {
  if (agentId === null) return;
  const [agent] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.guildId, guildId), eq(agents.coding, true), isNull(agents.archivedAt)))
    .limit(1);
  if (!agent) throw fieldError("task_agent_id", "no such coding agent in the guild");
}

/** The repository's folder must be free in the guild: every agent clones all of them side by side. */
async function refuseTakenFolder(db: Database, guildId: string, fullName: string) {
  const folder = repositoryFolder(fullName).toLowerCase();
  const rows = await db.select({ fullName: guildRepositories.fullName }).from(guildRepositories).where(eq(guildRepositories.guildId, guildId));
  const taken = rows.find((r) => repositoryFolder(r.fullName).toLowerCase() === folder);
  if (!taken) return;
  if (taken.fullName.toLowerCase() === fullName.toLowerCase()) throw alreadyAdded(fullName);
  throw new ApiError(409, "repository.name_taken", `The guild's repository ${taken.fullName} already clones into ${repositoryFolder(taken.fullName)}`, {
    field: "full_name",
  });
}

const alreadyAdded = (fullName: string) => new ApiError(409, "repository.exists", `The guild already has ${fullName}`, { field: "full_name" });

/** `/api/guilds/:id/repositories`, mounted beside the guild routes. */
export const guildRepositoryRoutes = new Hono<AppEnv>()
  .get(
    "/:id/repositories",
    operation({
      operationId: "listGuildRepositories",
      summary: "The guild's repositories, oldest first",
      tag: "Repositories",
      responses: { 200: ok("The repositories", RepositoryList) },
      notFound: "guild",
    }),
    pathId("guild"),
    async (c) => {
      const guild = await findGuild(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const rows = await c
        .get("db")
        .select()
        .from(guildRepositories)
        .where(eq(guildRepositories.guildId, guild.id))
        .orderBy(asc(guildRepositories.createdAt), asc(guildRepositories.id));
      return c.json({ data: rows.map((r) => toRepository(r, c.env.GITHUB_GIT_URL)) });
    },
  )
  .post(
    "/:id/repositories",
    operation({
      operationId: "createGuildRepository",
      summary: "Add a repository for the guild's coding agents: through a GitHub connection, or public (cloned anonymously)",
      tag: "Repositories",
      responses: { 201: ok("The repository", Repository) },
      notFound: "guild",
      body: true,
      invalid:
        "connection_id unknown or disconnected, full_name outside the connection's account, task_agent_id not a coding agent of the guild, trigger_label not a label name; github.repository_unreachable or github.installation_refused: GitHub does not give the installation access to it",
      conflict: "repository.exists: the guild already has it; repository.name_taken: another of its repositories clones into the same folder",
      errors: { 502: failure("GitHub could not be reached (github.unavailable)"), 503: failure(NOT_CONFIGURED) },
    }),
    pathId("guild"),
    jsonBody(RepositoryCreate),
    async (c) => {
      const db = c.get("db");
      const guild = await findGuild(db, c.get("organisationId"), c.req.valid("param").id);
      const body = c.req.valid("json");
      const connection = body.connection_id ? await connectionFor(db, guild.organisationId, body.connection_id, body.full_name) : null;
      await refuseTakenFolder(db, guild.id, body.full_name);
      await requireTaskAgent(db, guild.id, body.task_agent_id);
      if (connection) {
        // The token is only proof of access: it is dropped here, never stored or returned.
        await requireGitHub(c.env)
          .mintToken(connection.installationId, [repositoryFolder(body.full_name)])
          .catch((error: unknown) => githubFailure(error, "full_name"));
      }
      const [row] = await db
        .insert(guildRepositories)
        .values({
          guildId: guild.id,
          connectionId: connection?.id ?? null,
          fullName: body.full_name,
          defaultBranch: body.default_branch,
          taskAgentId: body.task_agent_id,
          triggerLabel: body.trigger_label,
        })
        .returning()
        .catch((error: unknown) => {
          if (sqlState(error) === UNIQUE_VIOLATION) throw alreadyAdded(body.full_name);
          throw error;
        });
      return c.json(toRepository(row!, c.env.GITHUB_GIT_URL), 201);
    },
  );
