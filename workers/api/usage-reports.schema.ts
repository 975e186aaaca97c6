/** Queries and answers of the usage reports: `GET /api/usage/summary` and `GET /api/usage/daily`. */
import * as z from "zod";
import { MAX_RANGE_DAYS } from "../../core/shared/date-range";
import { idInput } from "../../core/validation/fields";
import { UsageCounters } from "./usage.schema";

const dates = {
  from: z.iso.date().optional().describe("First UTC day, YYYY-MM-DD (default: the first of to's month)"),
  to: z.iso.date().optional().describe(`Last UTC day, YYYY-MM-DD, inclusive (default: today); at most ${MAX_RANGE_DAYS} days after from`),
};

/** Query of `GET /api/usage/summary`. */
export const UsageSummaryQuery = z.strictObject(dates);

/** Query of `GET /api/usage/daily`: whose series, and the range. */
export const UsageDailyQuery = z.strictObject({
  scope: z.enum(["org", "guild", "agent"]).describe("The organisation, one of its guilds or one of its agents"),
  id: idInput().optional().describe("The guild's or agent's id; for org, the caller's organisation (or nothing)"),
  ...dates,
});

const range = {
  from: z.iso.date().describe("First UTC day"),
  to: z.iso.date().describe("Last UTC day, inclusive"),
  days: z.int(),
};

const allTime = z.string().describe("The rollup counter's cost, all time (USAGE-004); it keeps the cost of deleted agents' replies");

export const UsageSummary = z
  .object({
    ...range,
    totals: UsageCounters,
    guilds: z
      .array(z.object({ id: z.uuid(), name: z.string(), ...UsageCounters.shape, all_time_cost_usd: allTime }).meta({ id: "GuildUsage" }))
      .describe("Every guild, costliest in the range first"),
    agents: z
      .array(z.object({ id: z.uuid(), name: z.string(), guild_id: z.uuid(), ...UsageCounters.shape, all_time_cost_usd: allTime }).meta({ id: "AgentUsage" }))
      .describe("Every agent, costliest in the range first"),
  })
  .meta({ id: "UsageSummary" });

export const UsageDay = z
  .object({
    date: z.iso.date().describe("A UTC day"),
    ...UsageCounters.shape,
    month_to_date_cost_usd: z.string().describe("Cost from the first of this day's month to the end of this day: what the monthly spend limit is held against"),
  })
  .meta({ id: "UsageDay" });

export const UsageDaily = z
  .object({
    scope: z.enum(["org", "guild", "agent"]),
    id: z.uuid(),
    ...range,
    data: z.array(UsageDay).describe("Every day of the range in order, zeros where nothing was used"),
  })
  .meta({ id: "UsageDaily" });
