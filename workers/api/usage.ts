import { and, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import * as z from "zod";
import { agentUsage, guildUsage, organisations, organisationUsage, orgMonthlyUsage } from "../../core/db/schema";
import { usageMonth } from "../../core/usage/pricing";
import { effectiveSpendLimit } from "../../core/usage/spend-limit";
import { fieldIssues } from "../../core/validation/issues";
import { readBody } from "../body";
import type { AppEnv } from "../context";
import { validationFailed } from "../errors";
import type { RouteDoc } from "../openapi";
import { findAgent } from "./agents";
import { findGuild } from "./guilds";

const UsageQuery = z.strictObject({ scope: z.enum(["agent", "guild", "org"]), id: z.uuid().optional() });

const Counters = z.object({
  input_tokens: z.number(), output_tokens: z.number(), cached_input_tokens: z.number(), reasoning_tokens: z.number(),
  cost_usd: z.string(), calls: z.number(),
});
const Usage = z.object({
  scope: z.enum(["agent", "guild", "org"]),
  id: z.uuid(),
  totals: Counters,
  month: z.object({
    month: z.string(), ...Counters.shape,
    limit_usd: z.string().nullable().describe("The effective monthly limit: the lower of the organisation's own limit and the operator's ceiling"),
    monthly_spend_limit_usd: z.string().nullable(),
    spend_ceiling_usd: z.string().nullable(),
  }).optional(),
});

const ZERO = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0, cost_usd: "0.000000", calls: 0 };

function counters(row: { inputTokens: number; outputTokens: number; cachedInputTokens: number; reasoningTokens: number; costUsd: string; calls: number } | undefined) {
  if (!row) return ZERO;
  return {
    input_tokens: row.inputTokens, output_tokens: row.outputTokens, cached_input_tokens: row.cachedInputTokens,
    reasoning_tokens: row.reasoningTokens, cost_usd: row.costUsd, calls: row.calls,
  };
}

/** `GET /api/usage?scope=agent|guild|org&id=`: the rollup counters (USAGE-004), with this month for the org. */
export const usageRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const query = UsageQuery.safeParse(c.req.query());
  if (!query.success) throw validationFailed(fieldIssues(query.error));
  const db = c.get("db");
  const org = c.get("organisationId");
  const { scope } = query.data;
  if (scope !== "org" && !query.data.id) throw validationFailed([{ field: "id", message: `the ${scope} id is required` }]);
  if (scope === "agent") {
    const agent = await findAgent(db, org, query.data.id!);
    const [row] = await db.select().from(agentUsage).where(eq(agentUsage.agentId, agent.id));
    return c.json({ scope, id: agent.id, totals: counters(row) });
  }
  if (scope === "guild") {
    const guild = await findGuild(db, org, query.data.id!);
    const [row] = await db.select().from(guildUsage).where(eq(guildUsage.guildId, guild.id));
    return c.json({ scope, id: guild.id, totals: counters(row) });
  }
  if (query.data.id && query.data.id !== org) throw validationFailed([{ field: "id", message: "not the caller's organisation" }]);
  const month = usageMonth(new Date());
  const [[totals], [monthly], [policy]] = await Promise.all([
    db.select().from(organisationUsage).where(eq(organisationUsage.organisationId, org)),
    db.select().from(orgMonthlyUsage).where(and(eq(orgMonthlyUsage.organisationId, org), eq(orgMonthlyUsage.month, month))),
    db.select().from(organisations).where(eq(organisations.id, org)),
  ]);
  return c.json({ scope, id: org, totals: counters(totals), month: { month, ...counters(monthly), ...spendPolicy(policy!) } });
});

const OrganisationPatch = z.strictObject({
  name: z.string().trim().min(1).max(120).optional(),
  monthly_spend_limit_usd: z.number().min(0).max(1e8).nullable().optional(),
}).refine((b) => Object.keys(b).length > 0, { message: "no field to change" });

const Organisation = z.object({
  id: z.uuid(),
  name: z.string(),
  monthly_spend_limit_usd: z.string().nullable(),
  spend_ceiling_usd: z.string().nullable().describe("Set by the platform's operator; the organisation's token cannot change it"),
  limit_usd: z.string().nullable().describe("The effective monthly limit: the lower of monthly_spend_limit_usd and spend_ceiling_usd"),
});

/** The organisation's own limit, the operator's ceiling and the lower of the two, as the API shows them. */
function spendPolicy(row: typeof organisations.$inferSelect) {
  const limit = effectiveSpendLimit(row.monthlySpendLimitUsd, row.spendCeilingUsd);
  return { limit_usd: limit === null ? null : limit.toFixed(6), monthly_spend_limit_usd: row.monthlySpendLimitUsd, spend_ceiling_usd: row.spendCeilingUsd };
}

const toOrganisation = (row: typeof organisations.$inferSelect) => ({ id: row.id, name: row.name, ...spendPolicy(row) });

/** `GET/PATCH /api/organisation`: the caller's organisation and its monthly spend limit (USAGE-005). */
export const organisationRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const [row] = await c.get("db").select().from(organisations).where(eq(organisations.id, c.get("organisationId")));
    return c.json(toOrganisation(row!));
  })
  .patch("/", async (c) => {
    // The operator's ceiling is not among the fields: a token can lower its limit, never lift the ceiling.
    const body = await readBody(c, OrganisationPatch);
    const [row] = await c.get("db").update(organisations).set({
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.monthly_spend_limit_usd !== undefined ? { monthlySpendLimitUsd: body.monthly_spend_limit_usd === null ? null : body.monthly_spend_limit_usd.toFixed(6) } : {}),
      updatedAt: sql`now()`,
    }).where(eq(organisations.id, c.get("organisationId"))).returning();
    return c.json(toOrganisation(row!));
  });

export const usageDocs: RouteDoc[] = [
  { method: "get", path: "/api/usage", summary: "Usage counters of an agent, guild or the organisation (?scope=&id=)", tag: "Usage", response: Usage },
  { method: "get", path: "/api/organisation", summary: "The caller's organisation", tag: "Usage", response: Organisation },
  { method: "patch", path: "/api/organisation", summary: "Rename the organisation or set its monthly spend limit (null: none); the operator's ceiling still applies", tag: "Usage", body: OrganisationPatch, response: Organisation },
];
