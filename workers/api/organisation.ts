import { eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { organisations } from "../../core/db/schema";
import { isPlatformOperator } from "../../core/usage/platform-operator";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation } from "../http/contract";
import { Organisation, OrganisationPatch } from "./organisation.schema";
import { spendPolicy } from "./usage";

/** The organisation as the API shows it; `platform_operator` tells the console whether platform-wide figures are the caller's to read (decision 0021). */
const toOrganisation = (row: typeof organisations.$inferSelect, operators: string | undefined) => ({
  id: row.id,
  name: row.name,
  ...spendPolicy(row),
  platform_operator: isPlatformOperator(operators, row.id),
});

/** `GET/PATCH /api/organisation`: the caller's organisation and its monthly spend limit (USAGE-005). */
export const organisationRoutes = new Hono<AppEnv>()
  .get(
    "/",
    operation({
      operationId: "getOrganisation",
      summary: "The caller's organisation and its spend limits",
      tag: "Usage",
      responses: { 200: ok("The organisation", Organisation) },
    }),
    async (c) => {
      const [row] = await c
        .get("db")
        .select()
        .from(organisations)
        .where(eq(organisations.id, c.get("organisationId")));
      return c.json(toOrganisation(row!, c.env.PLATFORM_OPERATOR_ORGANISATIONS));
    },
  )
  .patch(
    "/",
    operation({
      operationId: "updateOrganisation",
      summary: "Rename the organisation or set its monthly spend limit (null: none); the operator's ceiling still applies",
      tag: "Usage",
      responses: { 200: ok("The changed organisation", Organisation) },
      body: true,
    }),
    jsonBody(OrganisationPatch),
    async (c) => {
      // The operator's ceiling is not among the fields: a token can lower its limit, never lift the ceiling.
      const body = c.req.valid("json");
      const [row] = await c
        .get("db")
        .update(organisations)
        .set({
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.monthly_spend_limit_usd !== undefined
            ? { monthlySpendLimitUsd: body.monthly_spend_limit_usd === null ? null : body.monthly_spend_limit_usd.toFixed(6) }
            : {}),
          updatedAt: sql`now()`,
        })
        .where(eq(organisations.id, c.get("organisationId")))
        .returning();
      return c.json(toOrganisation(row!, c.env.PLATFORM_OPERATOR_ORGANISATIONS));
    },
  );
