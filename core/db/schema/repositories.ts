import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, text, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id } from "./columns";
import { agents, guilds, organisations } from "./tenancy";

/**
 * An installation of the platform's GitHub App that an organisation claimed (OP-REPO-6).
 * Disconnecting keeps the row (and the repositories using it): their generations then fail
 * with repository.token until the installation is connected again. One organisation at a
 * time holds an installation: two racing to claim one end with exactly one connected row.
 */
export const githubConnections = pgTable(
  "github_connections",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    installationId: bigint("installation_id", { mode: "number" }).notNull(),
    // The GitHub account (user or organisation) the installation belongs to.
    accountLogin: text("account_login").notNull(),
    createdAt: createdAt(),
    disconnectedAt: at("disconnected_at"),
  },
  (t) => [
    unique("github_connections_organisation_installation_unique").on(t.organisationId, t.installationId),
    uniqueIndex("github_connections_installation_held_unique").on(t.installationId).where(sql`${t.disconnectedAt} IS NULL`),
  ],
);

/**
 * The claim states already spent (OP-REPO-6): a state is signed, not stored, when the install
 * URL is made; presenting it inserts its nonce here, and the primary key lets one request
 * only spend it, however many arrive at once on whichever Worker instance. Rows past their
 * expiry are of no further use (the signature has expired too) and are cleared by later claims.
 */
export const githubClaimStates = pgTable(
  "github_claim_states",
  {
    nonce: text("nonce").primaryKey(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    expiresAt: at("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("github_claim_states_expires_idx").on(t.expiresAt)],
);

/**
 * A repository the guild's coding agents clone (REPO-006). The clone URL is derived from the
 * platform's git base and full_name, never stored: a tenant cannot point a box at another host.
 */
export const guildRepositories = pgTable(
  "guild_repositories",
  {
    id: id(),
    guildId: uuid("guild_id")
      .notNull()
      .references(() => guilds.id, { onDelete: "cascade" }),
    // null: a public repository, cloned anonymously.
    connectionId: uuid("connection_id").references(() => githubConnections.id, { onDelete: "cascade" }),
    // owner/repo as GitHub spells it.
    fullName: text("full_name").notNull(),
    defaultBranch: text("default_branch").notNull().default("main"),
    // The number of the repository's latest task (OP-TASK-11): a task's key is <PREFIX>-<n>.
    taskCounter: integer("task_counter").notNull().default(0),
    // The coding agent an issue of this repository files its task for (labelled, or an
    // @-mention of this agent); null: issues start no task.
    taskAgentId: uuid("task_agent_id").references(() => agents.id, { onDelete: "set null" }),
    // The issue label that files a task for the task agent.
    triggerLabel: text("trigger_label").notNull().default("agent"),
    // When a check run was first reported for the repository: from then on, a task's pull
    // request is marked ready only once its checks pass (runs.readyRequiresChecks).
    checksSeenAt: at("checks_seen_at"),
    createdAt: createdAt(),
  },
  (t) => [unique("guild_repositories_guild_full_name_unique").on(t.guildId, t.fullName), index("guild_repositories_connection_idx").on(t.connectionId)],
);
