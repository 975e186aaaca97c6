import { bigint, char, integer, numeric, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { at } from "./columns";
import { agents, guilds, organisations } from "./tenancy";

/** The figures every usage counter row carries, incremented with each priced assistant row. */
const counters = () => ({
  inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
  outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
  cachedInputTokens: bigint("cached_input_tokens", { mode: "number" }).notNull().default(0),
  reasoningTokens: bigint("reasoning_tokens", { mode: "number" }).notNull().default(0),
  costUsd: numeric("cost_usd", { precision: 14, scale: 6 }).notNull().default("0"),
  calls: integer("calls").notNull().default(0),
  updatedAt: at("updated_at").notNull().defaultNow(),
});

// Deleting an agent or guild drops its counter row (cascade); parent totals stay.
export const agentUsage = pgTable("agent_usage", {
  agentId: uuid("agent_id")
    .primaryKey()
    .references(() => agents.id, { onDelete: "cascade" }),
  ...counters(),
});

export const guildUsage = pgTable("guild_usage", {
  guildId: uuid("guild_id")
    .primaryKey()
    .references(() => guilds.id, { onDelete: "cascade" }),
  ...counters(),
});

export const organisationUsage = pgTable("organisation_usage", {
  organisationId: uuid("organisation_id")
    .primaryKey()
    .references(() => organisations.id, { onDelete: "cascade" }),
  ...counters(),
});

/** The whole instance: one row keyed 'global'. */
export const globalUsage = pgTable("global_usage", {
  scope: text("scope").primaryKey().default("global"),
  ...counters(),
});

/** Monthly totals per organisation (month 'YYYY-MM' in UTC); back the spend limit. */
export const orgMonthlyUsage = pgTable(
  "org_monthly_usage",
  {
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    month: char("month", { length: 7 }).notNull(),
    ...counters(),
  },
  (t) => [primaryKey({ columns: [t.organisationId, t.month] })],
);
