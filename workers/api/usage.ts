import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { agentUsage, guildUsageTotals, organisations, organisationUsageTotals, orgMonthlyUsageTotals } from "../../core/db/schema";
import { usageMonth } from "../../core/usage/pricing";
import { effectiveSpendLimit } from "../../core/usage/spend-limit";
import type { AppEnv } from "../http/context";
import { failure, ok, operation, query } from "../http/contract";
import { validationFailed } from "../http/errors";
import { findAgent } from "./agents";
import { findGuild } from "./guilds";
import { Usage, UsageQuery } from "./usage.schema";

export const ZERO = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0, cost_usd: "0.000000", calls: 0 };

export function counters(
  row: { inputTokens: number; outputTokens: number; cachedInputTokens: number; reasoningTokens: number; costUsd: string; calls: number } | undefined,
) {
  if (!row) return ZERO;
  return {
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cached_input_tokens: row.cachedInputTokens,
    reasoning_tokens: row.reasoningTokens,
    cost_usd: row.costUsd,
    calls: row.calls,
  };
}

/** `GET /api/usage?scope=agent|guild|org&id=`: the rollup counters (USAGE-004), with this month for the org. */
export const usageRoutes = new Hono<AppEnv>().get(
  "/",
  operation({
    operationId: "getUsage",
    summary: "Usage counters of an agent, a guild or the organisation (this month's too for the organisation)",
    tag: "Usage",
    responses: { 200: ok("The counters", Usage) },
    query: true,
    invalid: "no id for scope agent or guild, or another organisation's id",
    errors: { 404: failure("No such agent or guild in the caller's organisation (agent.not_found, guild.not_found)") },
  }),
  query(UsageQuery),
  async (c) => {
    const { scope, id } = c.req.valid("query");
    const db = c.get("db");
    const org = c.get("organisationId");
    if (scope !== "org" && !id) throw validationFailed([{ field: "id", message: `the ${scope} id is required` }]);
    if (scope === "agent") {
      const agent = await findAgent(db, org, id!);
      const [row] = await db.select().from(agentUsage).where(eq(agentUsage.agentId, agent.id));
      return c.json({ scope, id: agent.id, totals: counters(row) });
    }
    if (scope === "guild") {
      const guild = await findGuild(db, org, id!);
      const [row] = await db.select().from(guildUsageTotals).where(eq(guildUsageTotals.guildId, guild.id));
      return c.json({ scope, id: guild.id, totals: counters(row) });
    }
    if (id && id !== org) throw validationFailed([{ field: "id", message: "not the caller's organisation" }]);
    const month = usageMonth(new Date());
    const [[totals], [monthly], [policy]] = await Promise.all([
      db.select().from(organisationUsageTotals).where(eq(organisationUsageTotals.organisationId, org)),
      db
        .select()
        .from(orgMonthlyUsageTotals)
        .where(and(eq(orgMonthlyUsageTotals.organisationId, org), eq(orgMonthlyUsageTotals.month, month))),
      db.select().from(organisations).where(eq(organisations.id, org)),
    ]);
    return c.json({ scope, id: org, totals: counters(totals), month: { month, ...counters(monthly), ...spendPolicy(policy!) } });
  },
);

/** The organisation's own limit, the operator's ceiling and the lower of the two, as the API shows them. */
export function spendPolicy(row: typeof organisations.$inferSelect) {
  const limit = effectiveSpendLimit(row.monthlySpendLimitUsd, row.spendCeilingUsd);
  return { limit_usd: limit === null ? null : limit.toFixed(6), monthly_spend_limit_usd: row.monthlySpendLimitUsd, spend_ceiling_usd: row.spendCeilingUsd };
}
