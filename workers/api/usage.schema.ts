import * as z from "zod";
import { idInput } from "../../core/validation/fields";

/** Query of `GET /api/usage`: whose counters; `id` names the agent or guild (for org, the caller's own or none). */
export const UsageQuery = z.strictObject({
  scope: z.enum(["agent", "guild", "org"]),
  id: idInput().optional().describe("The agent's or guild's id (required for those scopes)"),
});

/** Token and cost counters (cost in USD as a decimal string). */
export const UsageCounters = z
  .object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    cached_input_tokens: z.number(),
    reasoning_tokens: z.number(),
    cost_usd: z.string(),
    calls: z.number(),
  })
  .meta({ id: "UsageCounters" });

/** The counters of an agent, guild or organisation; for the organisation, this month's too. */
export const Usage = z
  .object({
    scope: z.enum(["agent", "guild", "org"]),
    id: z.uuid(),
    totals: UsageCounters,
    month: z
      .object({
        month: z.string().describe("YYYY-MM (UTC)"),
        ...UsageCounters.shape,
        limit_usd: z.string().nullable().describe("The effective monthly limit: the lower of the organisation's own limit and the operator's ceiling"),
        monthly_spend_limit_usd: z.string().nullable(),
        spend_ceiling_usd: z.string().nullable(),
      })
      .optional()
      .describe("This month's counters and limits (scope org only)"),
  })
  .meta({ id: "Usage" });

/** The whole platform's counters (every organisation's priced replies), and this month's. */
export const PlatformUsage = z
  .object({
    totals: UsageCounters.describe("Every priced reply since the platform began, deleted agents', guilds' and organisations' included"),
    month: z
      .object({
        month: z.string().describe("YYYY-MM (UTC)"),
        organisations: z.number().describe("Organisations with usage this month"),
        ...UsageCounters.shape,
      })
      .describe("This month's counters summed over the organisations that still exist"),
  })
  .meta({ id: "PlatformUsage" });
