import { Hono } from "hono";
import { dailyUsage, type ReportScope, usageByAgent } from "../../core/db/usage-reports";
import { type DateRange, MAX_RANGE_DAYS, parseDateRange } from "../../core/shared/date-range";
import { addCounters } from "../../core/usage/counters";
import type { AppEnv } from "../http/context";
import { failure, ok, operation, query } from "../http/contract";
import { notFound, validationFailed } from "../http/errors";
import { findAgent } from "./agents";
import { findGuild } from "./guilds";
import { UsageDaily, UsageDailyQuery, UsageSummary, UsageSummaryQuery } from "./usage-reports.schema";

/** The query's date range, or 422 naming `from` or `to`. */
function rangeOf(dates: { from?: string | undefined; to?: string | undefined }): DateRange {
  const parsed = parseDateRange(dates, new Date());
  if ("issues" in parsed) throw validationFailed(parsed.issues);
  return parsed.range;
}

/** Where the reports' figures come from, as the API document says. */
const source =
  "Read from the priced assistant rows and the completed what-if variants; a day is the UTC date of a row's created_at. Rows of deleted agents and guilds are gone with them (USAGE-007/008), so these figures can be below the rollup counters.";

/**
 * `GET /api/usage/summary?from=&to=`: the organisation's usage in a date range, by
 * guild and by agent, in one request. `GET /api/usage/daily?scope=&id=&from=&to=`: per
 * UTC day of the range, for the organisation, a guild or an agent.
 */
export const usageReportRoutes = new Hono<AppEnv>()
  .get(
    "/summary",
    operation({
      operationId: "getUsageSummary",
      tag: "Usage",
      query: true,
      summary: "The organisation's usage in a date range, in total, by guild and by agent",
      description: `From ?from= to ?to= (UTC days, inclusive; this month to date by default; at most ${MAX_RANGE_DAYS} days). ${source}`,
      responses: { 200: ok("The range's usage by guild and agent", UsageSummary) },
    }),
    query(UsageSummaryQuery),
    async (c) => {
      const range = rangeOf(c.req.valid("query"));
      const { agents, guilds } = await usageByAgent(c.get("db"), c.get("organisationId"), range);
      const byGuild = guilds.map((g) => ({
        id: g.id,
        name: g.name,
        ...addCounters(agents.filter((a) => a.guild_id === g.id)),
        all_time_cost_usd: g.all_time_cost_usd,
      }));
      byGuild.sort((a, b) => Number(b.cost_usd) - Number(a.cost_usd));
      return c.json({ ...range, totals: addCounters(agents), guilds: byGuild, agents });
    },
  )
  .get(
    "/daily",
    operation({
      operationId: "getDailyUsage",
      tag: "Usage",
      query: true,
      errors: {
        404: failure(
          "No such agent or guild in the caller's organisation, or an id of another organisation (agent.not_found, guild.not_found, organisation.not_found)",
        ),
      },
      summary: "Cost, tokens and calls per UTC day of the organisation, a guild or an agent",
      description: `Every day from ?from= to ?to= (as the summary), zeros where nothing was used, each with its month-to-date cost. ${source}`,
      responses: { 200: ok("The daily series", UsageDaily) },
    }),
    query(UsageDailyQuery),
    async (c) => {
      const { scope, id, ...dates } = c.req.valid("query");
      const range = rangeOf(dates);
      const db = c.get("db");
      const org = c.get("organisationId");
      let target: ReportScope;
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
    },
  );
