import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { agents, guilds, organisations } from "./tenancy";

/**
 * Secrets of an organisation. The value is stored encrypted (AES-GCM, key outside
 * the database); the name is the environment variable the sandbox receives.
 */
export const secrets = pgTable(
  "secrets",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    // Organisation-wide secrets reach every agent; others reach only their grants.
    orgWide: boolean("org_wide").notNull().default(false),
    ciphertext: text("ciphertext").notNull(),
    iv: text("iv").notNull(),
    keyVersion: text("key_version").notNull().default("1"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique("secrets_organisation_name_unique").on(t.organisationId, t.name)],
);

/** A grant of one secret to exactly one guild or one agent. */
export const secretGrants = pgTable(
  "secret_grants",
  {
    id: id(),
    secretId: uuid("secret_id")
      .notNull()
      .references(() => secrets.id, { onDelete: "cascade" }),
    guildId: uuid("guild_id").references(() => guilds.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("secret_grants_secret_idx").on(t.secretId),
    index("secret_grants_guild_idx").on(t.guildId),
    index("secret_grants_agent_idx").on(t.agentId),
    check("secret_grants_target_check", sql`(${t.guildId} is null) <> (${t.agentId} is null)`),
  ],
);
