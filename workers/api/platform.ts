import { eq, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { Hono } from "hono";
import { globalUsageTotals, orgMonthlyUsageTotals } from "../../core/db/schema";
import { isPlatformOperator } from "../../core/usage/platform-operator";
import { usageMonth } from "../../core/usage/pricing";
import type { AppEnv } from "../http/context";
import { failure, ok, operation } from "../http/contract";
import { ApiError } from "../http/errors";
import { counters } from "./usage";
import { PlatformUsage } from "./usage.schema";

const total = (column: AnyPgColumn) => sql<number>`coalesce(sum(${column}), 0)::bigint`.mapWith(Number);

/**
 * `GET /api/platform/usage`: the platform-wide counter (the `global` row, USAGE-003) and this
 * month's sum over the organisations, for the platform's operators only (decision 0021).
 * Anyone else gets 403 `platform.forbidden` before any figure is read.
 */
export const platformRoutes = new Hono<AppEnv>().get(
  "/usage",
  operation({
    operationId: "getPlatformUsage",
    summary: "The whole platform's usage counters, all time and this month (platform operators only)",
    tag: "Usage",
    responses: { 200: ok("The platform's counters", PlatformUsage) },
    errors: { 403: failure("The caller's organisation is not one of the platform's operators (platform.forbidden)") },
  }),
  async (c) => {
    if (!isPlatformOperator(c.env.PLATFORM_OPERATOR_ORGANISATIONS, c.get("organisationId"))) {
      throw new ApiError(403, "platform.forbidden", "Only the platform's operators may read platform-wide figures");
    }
    const db = c.get("db");
    const month = usageMonth(new Date());
    const m = orgMonthlyUsageTotals;
    const [[global], [monthly]] = await Promise.all([
      db.select().from(globalUsageTotals).where(eq(globalUsageTotals.scope, "global")),
      db
        .select({
          organisations: sql<number>`count(*)::int`.mapWith(Number),
          inputTokens: total(m.inputTokens),
          outputTokens: total(m.outputTokens),
          cachedInputTokens: total(m.cachedInputTokens),
          reasoningTokens: total(m.reasoningTokens),
          costUsd: sql<string>`coalesce(sum(${m.costUsd}), 0)::numeric(14,6)::text`,
          calls: total(m.calls),
        })
        .from(m)
        .where(eq(m.month, month)),
    ]);
    return c.json({ totals: counters(global), month: { month, organisations: monthly?.organisations ?? 0, ...counters(monthly) } });
  },
);
