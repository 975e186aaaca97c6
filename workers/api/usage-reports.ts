import { Hono } from "hono";
import * as z from "zod";
import { dailyUsage, usageByAgent, type UsageScope } from "../../core/db/usage-reports";
import { addCounters } from "../../core/usage/counters";
import { MAX_RANGE_DAYS, parseDateRange, type DateRange } from "../../core/usage/date-range";
import { fieldIssues } from "../../core/validation/issues";
import type { AppEnv } from "../context";
import { notFound, validationFailed } from "../errors";
import type { RouteDoc } from "../openapi";
import { findAgent } from "./agents";
import { findGuild } from "./guilds";

const Dates = { from: z.string().optional(), to: z.string().optional() };
const SummaryQuery = z.strictObject(Dates);
const DailyQuery = z.strictObject({ scope: z.enum(["agent", "guild", "org"]), id: z.uuid().optional(), ...Dates });

const Counters = z.object({
  input_tokens: z.number(), output_tokens: z.number(), cached_input_tokens: z.number(), reasoning_tokens: z.number(),
  cost_usd: z.string(), calls: z.number(),
});
const Range = {
  from: z.string().describe("First UTC day, YYYY-MM-DD"),
  to: z.string().describe("Last UTC day, YYYY-MM-DD, inclusive"),
  days: z.number(),
};
const Summary = z.object({
  ...Range,
  totals: Counters,
  guilds: z.array(z.object({ id: z.uuid(), name: z.string(), ...Counters.shape, all_time_cost_usd: z.string() })),
  agents: z.array(z.object({ id: z.uuid(), name: z.string(), guild_id: z.uuid(), ...Counters.shape, all_time_cost_usd: z.string() })),
});
const Daily = z.object({
  scope: z.enum(["agent", "guild", "org"]),
  id: z.uuid(),
  ...Range,
  data: z.array(z.object({ date: z.string(), ...Counters.shape, month_to_date_cost_usd: z.string() })),
});

/** The query's date range, or 422 naming `from` or `to`. */
function rangeOf(query: { from?: string; to?: string }): DateRange {
  const parsed = parseDateRange(query, new Date());
  if ("issues" in parsed) throw validationFailed(parsed.issues);
  return parsed.range;
}

/**
 * `GET /api/usage/summary?from=&to=`: the organisation's usage in a date range, by
 * guild and by agent, in one request. `GET /api/usage/daily?scope=&id=&from=&to=`: per
 * UTC day of the range, for the organisation, a guild or an agent.
 */
export const usageReportRoutes = new Hono<AppEnv>()
  .get("/summary", async (c) => {
    const query = SummaryQuery.safeParse(c.req.query());
    if (!query.success) throw validationFailed(fieldIssues(query.error));
    const range = rangeOf(query.data);
    const { agents, guilds } = await usageByAgent(c.get("db"), c.get("organisationId"), range);
    const byGuild = guilds.map((g) => ({ id: g.id, name: g.name, ...addCounters(agents.filter((a) => a.guild_id === g.id)), all_time_cost_usd: g.all_time_cost_usd }));
    byGuild.sort((a, b) => Number(b.cost_usd) - Number(a.cost_usd));
    return c.json({ ...range, totals: addCounters(agents), guilds: byGuild, agents });
  })
  .get("/daily", async (c) => {
    const query = DailyQuery.safeParse(c.req.query());
    if (!query.success) throw validationFailed(fieldIssues(query.error));
    const range = rangeOf(query.data);
    const db = c.get("db");
    const org = c.get("organisationId");
    const { scope, id } = query.data;
    let target: UsageScope;
    if (scope === "org") {
      if (id !== undefined && id !== org) throw notFound("organisation");
      target = { scope };
    } else {
      if (id === undefined) throw validationFailed([{ field: "id", message: `the ${scope} id is required` }]);
      // 404 for another organisation's guild or agent, as everywhere.
      target = { scope, id: (await (scope === "agent" ? findAgent(db, org, id) : findGuild(db, org, id))).id };
    }
    const data = await dailyUsage(db, org, target, range);
    return c.json({ scope, id: scope === "org" ? org : id!, ...range, data });
  });

const reportNote = "Read from the priced assistant rows; days are UTC dates of the rows' created_at. Rows of deleted agents and guilds are gone with them, so these figures can be below the rollup counters.";

export const usageReportDocs: RouteDoc[] = [
  {
    method: "get", path: "/api/usage/summary", tag: "Usage", response: Summary,
    summary: `The organisation's usage from ?from= to ?to= (YYYY-MM-DD, inclusive; this UTC month to date by default; at most ${MAX_RANGE_DAYS} days), in total, by guild and by agent, each with its all-time counter. ${reportNote}`,
  },
  {
    method: "get", path: "/api/usage/daily", tag: "Usage", response: Daily,
    summary: `Cost, tokens and calls per UTC day for ?scope=org|guild|agent&id= from ?from= to ?to= (as the summary), days without usage as zeros, with each day's month-to-date cost (what the monthly spend limit is held against). ${reportNote}`,
  },
];
