import { type SQL, sql } from "drizzle-orm";
import { USAGE_SHARDS } from "./schema/usage";

/** Who a priced assistant row is billed to: every scope of its counters. */
export interface UsageScope {
  agentId: string;
  guildId: string;
  organisationId: string;
  month: string;
}

export interface UsageFigures {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costUsd: number;
}

/**
 * The counter shard an agent's answers add to (decision 0039): its id's first hex digit, so
 * an agent always writes the same row and agents spread evenly over the 16.
 *
 * @example usageShard("a3c1…") // 10
 */
export function usageShard(agentId: string): number {
  const digit = Number.parseInt(agentId.charAt(0), 16);
  return Number.isNaN(digit) ? 0 : digit % USAGE_SHARDS;
}

/**
 * The counter upserts of one priced model call (USAGE-003), as CTEs `a, g, o, w, mo` of the
 * caller's statement: the agent's row and its shard of the guild's, the organisation's, the
 * instance's and the organisation's month. `mo` answers the organisation's spend this month as
 * `cost_usd`, this call's included: the month's total as the statement's snapshot saw it, plus
 * this cost. The snapshot holds each other call either with its hold or with its cost, never
 * neither, so spend and holds read together stay whole.
 */
export function usageCounterUpdates(scope: UsageScope, usage: UsageFigures): SQL {
  const cost = usage.costUsd.toFixed(6);
  const shard = usageShard(scope.agentId);
  const figures = sql`${usage.inputTokens}, ${usage.outputTokens}, ${usage.cachedInputTokens}, ${usage.reasoningTokens}, ${cost}::numeric, 1`;
  const increment = (table: string) =>
    sql.raw(`
    input_tokens = ${table}.input_tokens + excluded.input_tokens,
    output_tokens = ${table}.output_tokens + excluded.output_tokens,
    cached_input_tokens = ${table}.cached_input_tokens + excluded.cached_input_tokens,
    reasoning_tokens = ${table}.reasoning_tokens + excluded.reasoning_tokens,
    cost_usd = ${table}.cost_usd + excluded.cost_usd,
    calls = ${table}.calls + 1,
    updated_at = now()`);
  const columns = sql.raw("input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, calls");
  return sql`a as (
      insert into agent_usage (agent_id, ${columns}) values (${scope.agentId}, ${figures})
      on conflict (agent_id) do update set ${increment("agent_usage")} returning 1
    ), g as (
      insert into guild_usage_shards (guild_id, shard, ${columns}) values (${scope.guildId}, ${shard}, ${figures})
      on conflict (guild_id, shard) do update set ${increment("guild_usage_shards")} returning 1
    ), o as (
      insert into organisation_usage_shards (organisation_id, shard, ${columns}) values (${scope.organisationId}, ${shard}, ${figures})
      on conflict (organisation_id, shard) do update set ${increment("organisation_usage_shards")} returning 1
    ), w as (
      insert into global_usage_shards (scope, shard, ${columns}) values ('global', ${shard}, ${figures})
      on conflict (scope, shard) do update set ${increment("global_usage_shards")} returning 1
    ), mw as (
      insert into org_monthly_usage_shards (organisation_id, month, shard, ${columns}) values (${scope.organisationId}, ${scope.month}, ${shard}, ${figures})
      on conflict (organisation_id, month, shard) do update set ${increment("org_monthly_usage_shards")} returning 1
    ), mo as (
      select coalesce((select t.cost_usd from org_monthly_usage_totals t where t.organisation_id = ${scope.organisationId} and t.month = ${scope.month}), 0)
        + ${cost}::numeric as cost_usd
      from mw
    )`;
}
