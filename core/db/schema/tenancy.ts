import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, numeric, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./columns";

/** An organisation owns guilds, org-wide secrets and API tokens; its policy may cap monthly spend. */
export const organisations = pgTable("organisations", {
  id: id(),
  name: text("name").notNull(),
  monthlySpendLimitUsd: numeric("monthly_spend_limit_usd", { precision: 14, scale: 6 }),
  // Set by the platform's operator, never through the organisation's own tokens: the
  // effective monthly limit is the lower of this and monthly_spend_limit_usd.
  spendCeilingUsd: numeric("spend_ceiling_usd", { precision: 14, scale: 6 }),
  // runs.* and volumes.* of the task scheduler (core/tasks/settings.ts); absent keys take their defaults.
  taskSettings: jsonb("task_settings").notNull().default({}),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Operator API tokens. Only a SHA-256 hash is stored; the prefix lets people tell tokens apart. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    lastUsedAt: at("last_used_at"),
    expiresAt: at("expires_at"),
    revokedAt: at("revoked_at"),
  },
  (t) => [index("api_tokens_organisation_idx").on(t.organisationId)],
);

export const guilds = pgTable(
  "guilds",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    routinesEnabled: boolean("routines_enabled").notNull().default(true),
    gitAuthorEmail: text("git_author_email"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("guilds_organisation_idx").on(t.organisationId)],
);

/**
 * An agent and its configuration. Runs snapshot these settings at creation, so a
 * change here reaches new runs only.
 */
export const agents = pgTable(
  "agents",
  {
    id: id(),
    // Copied from the guild so every org-scoped lookup is one indexed predicate.
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    guildId: uuid("guild_id")
      .notNull()
      .references(() => guilds.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    instructions: text("instructions").notNull().default(""),
    // Model settings.
    model: text("model").notNull(),
    modelBaseUrl: text("model_base_url"),
    modelApiKeySecret: text("model_api_key_secret"),
    maxSteps: integer("max_steps").notNull().default(40),
    maxToolCalls: integer("max_tool_calls").notNull().default(50),
    maxInputTokens: integer("max_input_tokens").notNull().default(100000),
    keepToolResultGenerations: integer("keep_tool_result_generations").notNull().default(1),
    projectionPolicyVersion: integer("projection_policy_version").notNull().default(1),
    thinkingLevel: text("thinking_level").notNull().default("off"),
    // Capability and access flags.
    browser: boolean("browser").notNull().default(false),
    coding: boolean("coding").notNull().default(false),
    cli: boolean("cli").notNull().default(true),
    scripting: boolean("scripting").notNull().default(true),
    memory: boolean("memory").notNull().default(false),
    // The group_post binding: the agent may post to its guild's chat.
    groupPost: boolean("group_post").notNull().default(true),
    browserLanguage: text("browser_language").notNull().default("en-US"),
    maxWorkspaceMib: integer("max_workspace_mib").notNull().default(2048),
    maxScripts: integer("max_scripts").notNull().default(10),
    // What generates a coding agent's task turns (core/tasks/harness.ts): the fields it sets, {} for the defaults.
    taskHarness: jsonb("task_harness").notNull().default({}),
    // Last measured size of the agent's home, in MiB.
    workspaceMib: integer("workspace_mib"),
    archivedAt: at("archived_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("agents_organisation_idx").on(t.organisationId),
    index("agents_guild_idx").on(t.guildId),
    check("agents_thinking_level_check", sql`${t.thinkingLevel} in ('off', 'low', 'medium', 'high')`),
    check(
      "agents_limits_check",
      sql`${t.maxSteps} > 0 and ${t.maxToolCalls} > 0 and ${t.maxInputTokens} > 0 and ${t.keepToolResultGenerations} > 0 and ${t.maxScripts} > 0 and ${t.maxWorkspaceMib} > 0`,
    ),
  ],
);
