import * as z from "zod";

/** Body of `PATCH /api/organisation`: any subset, at least one. */
export const OrganisationPatch = z
  .strictObject({
    name: z.string().trim().min(1).max(120).optional(),
    monthly_spend_limit_usd: z.number().min(0).max(1e8).nullable().optional().describe("null: no limit of the organisation's own"),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "no field to change" })
  .meta({ id: "OrganisationPatch" });

/** The caller's organisation and its spend limits. */
export const Organisation = z
  .object({
    id: z.uuid(),
    name: z.string(),
    monthly_spend_limit_usd: z.string().nullable(),
    spend_ceiling_usd: z.string().nullable().describe("Set by the platform's operator; the organisation's token cannot change it"),
    limit_usd: z.string().nullable().describe("The effective monthly limit: the lower of monthly_spend_limit_usd and spend_ceiling_usd"),
    platform_operator: z
      .boolean()
      .describe("Whether the organisation is one of the platform's operators, who may read platform-wide figures (GET /api/platform/usage)"),
  })
  .meta({ id: "Organisation" });
