import { asc, eq } from "drizzle-orm";
import { cloneUrl, repositoryFolder } from "../repos/repository";
import type { RepositoryForGeneration } from "../repos/types";
import type { AnyDatabase } from "./client";
import { githubConnections, guildRepositories } from "./schema";

/**
 * The guild's repositories as a coding agent's generation prepares them (REPO-001..008),
 * oldest first, each with its connection (null for an anonymous clone) and its clone URL
 * under `gitBaseUrl` (the platform's GITHUB_GIT_URL; github.com when unset).
 *
 * @example await repositoriesForGeneration(db, guildId, env.GITHUB_GIT_URL)
 */
export async function repositoriesForGeneration(db: AnyDatabase, guildId: string, gitBaseUrl?: string): Promise<RepositoryForGeneration[]> {
  const rows = await db
    .select({ repository: guildRepositories, connection: githubConnections })
    .from(guildRepositories)
    .leftJoin(githubConnections, eq(githubConnections.id, guildRepositories.connectionId))
    .where(eq(guildRepositories.guildId, guildId))
    .orderBy(asc(guildRepositories.createdAt), asc(guildRepositories.id));
  return rows.map(({ repository, connection }) => ({
    id: repository.id,
    full_name: repository.fullName,
    name: repositoryFolder(repository.fullName),
    default_branch: repository.defaultBranch,
    clone_url: cloneUrl(gitBaseUrl, repository.fullName),
    connection: connection ? { id: connection.id, installation_id: connection.installationId, disconnected: connection.disconnectedAt !== null } : null,
  }));
}
