/**
 * Usage over a date range, read from the priced assistant rows (messages.cost_usd, the
 * column kept for accounting queries, USAGE-006) and the usage in their metadata, and from
 * the completed what-if variants (prompt_variants, decision 0022). The
 * rollup counters hold running totals only, so days and ranges come from the rows:
 * every reply the counters count is one such row (commitAssistantRow and completeVariant
 * write both), and a row's day is the UTC date of its created_at.
 *
 * Rows of a deleted agent or guild are gone with it (USAGE-007/008); the counters keep
 * their cost, so these figures can be below the organisation's counters.
 */
import { type SQL, sql } from "drizzle-orm";
import { type DateRange, monthStart } from "../shared/date-range";
import type { UsageCounters } from "../usage/counters";
import type { Database } from "./client";

/** Whose rows a report reads: the organisation's, or one of its guilds or agents. */
export type ReportScope = { scope: "org" } | { scope: "guild"; id: string } | { scope: "agent"; id: string };

/** One day of the daily series. */
export interface UsageDay extends UsageCounters {
  /** `YYYY-MM-DD`, a UTC day. */
  date: string;
  /** Cost from the first day of this day's month to the end of this day: what the monthly limit is held against. */
  month_to_date_cost_usd: string;
}

export interface AgentUsage extends UsageCounters {
  id: string;
  name: string;
  guild_id: string;
  /** The agent's rollup counter, all time (USAGE-004). */
  all_time_cost_usd: string;
}

export interface GuildUsage {
  id: string;
  name: string;
  /** The guild's rollup counter, all time (USAGE-004); it keeps deleted agents' cost. */
  all_time_cost_usd: string;
}

/** A token figure of a row's metadata.usage; anything but a number counts 0 rather than failing the report. */
const token = (field: string) =>
  `case when jsonb_typeof(m.metadata->'usage'->'${field}') = 'number' then (m.metadata->'usage'->>'${field}')::numeric else 0 end`;

/** Sums of the grouped calls, named as the `figures` below read them. */
const sums = sql.raw(`
  sum(m.cost) as cost,
  sum(m.input) as input,
  sum(m.output) as output,
  sum(m.cached) as cached,
  sum(m.reasoning) as reasoning,
  count(*) as calls`);

/** The counters of a row of `sums` (or none), cost with the columns' 6 decimals. */
const figures = sql.raw(`
  coalesce(u.cost, 0)::numeric(20, 6)::text as cost_usd,
  coalesce(u.input, 0)::float8 as input_tokens,
  coalesce(u.output, 0)::float8 as output_tokens,
  coalesce(u.cached, 0)::float8 as cached_input_tokens,
  coalesce(u.reasoning, 0)::float8 as reasoning_tokens,
  coalesce(u.calls, 0)::int as calls`);

/** Created within [start, end] (UTC days, inclusive). */
const within = (column: string, start: string, end: string) => sql`
  ${sql.raw(column)} >= ${start}::timestamp at time zone 'UTC'
  and ${sql.raw(column)} < (${end}::date + 1)::timestamp at time zone 'UTC'`;

/**
 * The priced model calls made within [start, end], as `m`: the priced assistant rows, and the
 * completed what-if variants (decision 0022), which the counters count as well.
 */
const billedCallsWithin = (start: string, end: string) => sql`(
  select m.run_id, m.created_at, m.cost_usd as cost, ${sql.raw(token("prompt_tokens"))} as input, ${sql.raw(token("completion_tokens"))} as output,
    ${sql.raw(token("cached_tokens"))} as cached, ${sql.raw(token("reasoning_tokens"))} as reasoning
  from messages m where m.role = 'assistant' and m.cost_usd is not null and ${within("m.created_at", start, end)}
  union all
  select v.run_id, v.created_at, v.cost_usd, v.input_tokens, v.output_tokens, v.cached_input_tokens, v.reasoning_tokens
  from prompt_variants v where v.status = 'completed' and ${within("v.created_at", start, end)}
) m`;

const scopeFilter = (organisationId: string, scope: ReportScope): SQL => {
  const org = sql`a.organisation_id = ${organisationId}`;
  if (scope.scope === "guild") return sql`${org} and a.guild_id = ${scope.id}`;
  if (scope.scope === "agent") return sql`${org} and a.id = ${scope.id}`;
  return org;
};

const counters = (row: Record<string, unknown>): UsageCounters => ({
  input_tokens: Number(row.input_tokens),
  output_tokens: Number(row.output_tokens),
  cached_input_tokens: Number(row.cached_input_tokens),
  reasoning_tokens: Number(row.reasoning_tokens),
  cost_usd: String(row.cost_usd),
  calls: Number(row.calls),
});

/**
 * Cost, tokens and calls per UTC day of the range, days without usage as zeros, with
 * the month-to-date cost of each day. One statement: the rows are grouped by day from
 * the first day of `from`'s month (for month to date), joined to every day of the
 * series, and the days before `from` dropped.
 */
export async function dailyUsage(db: Database, organisationId: string, scope: ReportScope, range: DateRange): Promise<UsageDay[]> {
  const start = monthStart(range.from);
  const result = await db.execute(sql`
    with u as (
      select (m.created_at at time zone 'UTC')::date as day, ${sums}
      from ${billedCallsWithin(start, range.to)} join runs r on r.id = m.run_id join agents a on a.id = r.agent_id
      where ${scopeFilter(organisationId, scope)}
      group by 1
    ), series as (
      select d.day::date as day, ${figures},
        sum(coalesce(u.cost, 0)) over (partition by date_trunc('month', d.day) order by d.day) as month_cost
      from generate_series(${start}::timestamp, ${range.to}::timestamp, interval '1 day') as d(day)
      left join u on u.day = d.day::date
    )
    select day::text as date, cost_usd, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, calls,
      month_cost::numeric(20, 6)::text as month_to_date_cost_usd
    from series where day >= ${range.from}::date order by day`);
  return result.rows.map((row) => ({ date: String(row.date), ...counters(row), month_to_date_cost_usd: String(row.month_to_date_cost_usd) }));
}

/**
 * Every agent of the organisation with its usage in the range (zeros when none) and its
 * all-time counter, costliest first; and every guild with its all-time counter. Two
 * statements, sent together.
 */
export async function usageByAgent(db: Database, organisationId: string, range: DateRange): Promise<{ agents: AgentUsage[]; guilds: GuildUsage[] }> {
  const [agentRows, guildRows] = await Promise.all([
    db.execute(sql`
      with u as (
        select r.agent_id, ${sums}
        from ${billedCallsWithin(range.from, range.to)} join runs r on r.id = m.run_id join agents a on a.id = r.agent_id
        where a.organisation_id = ${organisationId}
        group by r.agent_id
      )
      select a.id, a.name, a.guild_id, ${figures}, coalesce(au.cost_usd, 0)::numeric(20, 6)::text as all_time_cost_usd
      from agents a left join u on u.agent_id = a.id left join agent_usage au on au.agent_id = a.id
      where a.organisation_id = ${organisationId}
      order by coalesce(u.cost, 0) desc, a.name, a.id`),
    db.execute(sql`
      select g.id, g.name, coalesce(gu.cost_usd, 0)::numeric(20, 6)::text as all_time_cost_usd
      from guilds g left join guild_usage_totals gu on gu.guild_id = g.id
      where g.organisation_id = ${organisationId}
      order by g.name, g.id`),
  ]);
  return {
    agents: agentRows.rows.map((row) => ({
      id: String(row.id),
      name: String(row.name),
      guild_id: String(row.guild_id),
      ...counters(row),
      all_time_cost_usd: String(row.all_time_cost_usd),
    })),
    guilds: guildRows.rows.map((row) => ({ id: String(row.id), name: String(row.name), all_time_cost_usd: String(row.all_time_cost_usd) })),
  };
}
