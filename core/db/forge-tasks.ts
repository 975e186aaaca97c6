/**
 * What a webhook delivery looks up among the organisation's tasks (issue 33): the guild
 * repositories of a GitHub repository with their task agent, the task an issue filed, the
 * tasks whose pull request a review or comment is on. GitHub spells a repository as it
 * likes (`Acme/App`); a guild names it as it was added: names are compared without case.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { agents, guildRepositories, guilds, tasks } from "./schema";
import type { TaskRow } from "./task-rows";

/** A guild repository of the organisation, with its task agent when one can take tasks. */
export interface IssueRepository {
  id: string;
  guildId: string;
  fullName: string;
  defaultBranch: string;
  triggerLabel: string;
  /** The task agent: a coding agent of the guild, not archived; null when none is set or it can no longer take tasks. */
  agent: { id: string; name: string } | null;
}

const sameName = (fullName: string) => sql`lower(${guildRepositories.fullName}) = lower(${fullName})`;

/** The organisation's guild repositories named `fullName`, oldest first. */
export async function issueRepositories(db: AnyDatabase, organisationId: string, fullName: string): Promise<IssueRepository[]> {
  const rows = await db
    .select({
      id: guildRepositories.id,
      guildId: guildRepositories.guildId,
      fullName: guildRepositories.fullName,
      defaultBranch: guildRepositories.defaultBranch,
      triggerLabel: guildRepositories.triggerLabel,
      agentId: agents.id,
      agentName: agents.name,
      coding: agents.coding,
      archivedAt: agents.archivedAt,
    })
    .from(guildRepositories)
    .innerJoin(guilds, eq(guilds.id, guildRepositories.guildId))
    // The agent of the same guild only: a task agent set before a move is no task agent.
    .leftJoin(agents, and(eq(agents.id, guildRepositories.taskAgentId), eq(agents.guildId, guildRepositories.guildId)))
    .where(and(eq(guilds.organisationId, organisationId), sameName(fullName)))
    .orderBy(guildRepositories.createdAt, guildRepositories.id);
  return rows.map((row) => ({
    id: row.id,
    guildId: row.guildId,
    fullName: row.fullName,
    defaultBranch: row.defaultBranch,
    triggerLabel: row.triggerLabel,
    agent: row.agentId && row.agentName !== null && row.coding && !row.archivedAt ? { id: row.agentId, name: row.agentName } : null,
  }));
}

/** The task the issue filed in this guild repository (one per issue), or null. */
export async function taskForIssue(db: AnyDatabase, repositoryId: string, issueNumber: number): Promise<TaskRow | null> {
  const [row] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.repositoryId, repositoryId), eq(tasks.issueNumber, issueNumber), isNull(tasks.parentTaskId)))
    .limit(1);
  return row ?? null;
}

/**
 * The organisation's tasks whose pull request is `number` of the repository `fullName`. A
 * best-of-N winner carries its parent's pull request: the parent answers for it (a message to
 * it goes to the winner), so attempts are not listed.
 */
export async function tasksForPull(db: AnyDatabase, organisationId: string, fullName: string, number: number): Promise<TaskRow[]> {
  const rows = await db
    .select({ task: tasks })
    .from(tasks)
    .innerJoin(guildRepositories, eq(guildRepositories.id, tasks.repositoryId))
    .where(and(eq(tasks.organisationId, organisationId), eq(tasks.pullRequestNumber, number), isNull(tasks.parentTaskId), sameName(fullName)))
    .orderBy(tasks.createdAt, tasks.id);
  return rows.map((row) => row.task);
}
