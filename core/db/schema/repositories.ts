import { bigint, index, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id } from "./columns";
import { guilds, organisations } from "./tenancy";

/**
 * An installation of the platform's GitHub App that an organisation connected (OP-REPO-6).
 * Disconnecting keeps the row (and the repositories using it): their generations then fail
 * with repository.token until the installation is connected again.
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
  (t) => [unique("github_connections_organisation_installation_unique").on(t.organisationId, t.installationId)],
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
    createdAt: createdAt(),
  },
  (t) => [unique("guild_repositories_guild_full_name_unique").on(t.guildId, t.fullName), index("guild_repositories_connection_idx").on(t.connectionId)],
);
