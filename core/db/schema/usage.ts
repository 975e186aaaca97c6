import { sql } from "drizzle-orm";
import { bigint, char, integer, numeric, pgTable, pgView, primaryKey, smallint, text, uuid } from "drizzle-orm/pg-core";
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

// Deleting an agent or guild drops its counter rows (cascade); parent totals stay.
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

/*
 * Counter shards (decision 0039). A priced answer adds to its agent's row and to one shard row
 * of its guild, its organisation, the instance and the organisation's month: the shard its
 * agent's id picks (`usageShard`). Agents of one organisation then commit side by side instead
 * of queueing for the same four rows' locks. The `*_totals` views sum the shards and the rows
 * of the tables above, which releases before the shards wrote (and still write while a rollout
 * serves both); every reader reads the views.
 */

/** How many rows a scope's counters are spread over. */
export const USAGE_SHARDS = 16;
const shard = () => smallint("shard").notNull();

export const guildUsageShards = pgTable(
  "guild_usage_shards",
  {
    guildId: uuid("guild_id")
      .notNull()
      .references(() => guilds.id, { onDelete: "cascade" }),
    shard: shard(),
    ...counters(),
  },
  (t) => [primaryKey({ columns: [t.guildId, t.shard] })],
);

export const organisationUsageShards = pgTable(
  "organisation_usage_shards",
  {
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    shard: shard(),
    ...counters(),
  },
  (t) => [primaryKey({ columns: [t.organisationId, t.shard] })],
);

export const globalUsageShards = pgTable("global_usage_shards", { scope: text("scope").notNull().default("global"), shard: shard(), ...counters() }, (t) => [
  primaryKey({ columns: [t.scope, t.shard] }),
]);

export const orgMonthlyUsageShards = pgTable(
  "org_monthly_usage_shards",
  {
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    month: char("month", { length: 7 }).notNull(),
    shard: shard(),
    ...counters(),
  },
  (t) => [primaryKey({ columns: [t.organisationId, t.month, t.shard] })],
);

/** The figures of a totals view: each summed over the scope's rows, typed as the tables type them. */
const summed = () => ({
  inputTokens: bigint("input_tokens", { mode: "number" }).notNull(),
  outputTokens: bigint("output_tokens", { mode: "number" }).notNull(),
  cachedInputTokens: bigint("cached_input_tokens", { mode: "number" }).notNull(),
  reasoningTokens: bigint("reasoning_tokens", { mode: "number" }).notNull(),
  costUsd: numeric("cost_usd", { precision: 14, scale: 6 }).notNull(),
  calls: integer("calls").notNull(),
  updatedAt: at("updated_at").notNull(),
});

/** A totals view's query: the table's rows and the shards', summed per key. */
function totals(table: string, key: string) {
  const figures = "input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls, updated_at";
  return sql.raw(`select ${key}, sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens,
    sum(cached_input_tokens)::bigint as cached_input_tokens, sum(reasoning_tokens)::bigint as reasoning_tokens,
    sum(cost_usd)::numeric(14, 6) as cost_usd, sum(calls)::integer as calls, max(updated_at) as updated_at
  from (select ${key}, ${figures} from ${table} union all select ${key}, ${figures} from ${table}_shards) rows
  group by ${key}`);
}

export const guildUsageTotals = pgView("guild_usage_totals", { guildId: uuid("guild_id").notNull(), ...summed() }).as(totals("guild_usage", "guild_id"));

export const organisationUsageTotals = pgView("organisation_usage_totals", { organisationId: uuid("organisation_id").notNull(), ...summed() }).as(
  totals("organisation_usage", "organisation_id"),
);

export const globalUsageTotals = pgView("global_usage_totals", { scope: text("scope").notNull(), ...summed() }).as(totals("global_usage", "scope"));

export const orgMonthlyUsageTotals = pgView("org_monthly_usage_totals", {
  organisationId: uuid("organisation_id").notNull(),
  month: char("month", { length: 7 }).notNull(),
  ...summed(),
}).as(totals("org_monthly_usage", "organisation_id, month"));
