import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../core/db/client";
import { organisations, orgMonthlyUsage, runs } from "../../core/db/schema";
import { resolveSecrets } from "../../core/db/secrets";
import { usageMonth } from "../../core/usage/pricing";
import { effectiveSpendLimit } from "../../core/usage/spend-limit";
import type { RunSession } from "./run-session";

/**
 * Each generation re-resolves the agent's secrets and writes the list onto the run
 * snapshot, so a later grant, removal or rename reaches an existing run (SEC-001..003,
 * EXACT-025). Names and descriptions only; one write, and only when the list changed.
 */
export async function refreshSecrets(db: Database, session: RunSession): Promise<void> {
  const current = await resolveSecrets(db, { id: session.scope.agentId, ...session.scope });
  if (JSON.stringify(current) === JSON.stringify(session.snapshot.secrets)) return;
  await db.update(runs)
    .set({ snapshot: sql`jsonb_set(${runs.snapshot}, '{secrets}', ${JSON.stringify(current)}::jsonb)` })
    .where(eq(runs.id, session.runId));
  session.snapshot.secrets = current;
}

/**
 * The organisation's effective monthly spend limit (the lower of its own limit and the
 * operator's ceiling) and this month's spend, read once per generation (USAGE-005).
 */
export async function monthSpend(db: Database, organisationId: string, now: Date) {
  const [row] = await db
    .select({ limit: organisations.monthlySpendLimitUsd, ceiling: organisations.spendCeilingUsd, spent: orgMonthlyUsage.costUsd })
    .from(organisations)
    .leftJoin(orgMonthlyUsage, and(eq(orgMonthlyUsage.organisationId, organisations.id), eq(orgMonthlyUsage.month, usageMonth(now))))
    .where(eq(organisations.id, organisationId));
  return { limitUsd: effectiveSpendLimit(row?.limit, row?.ceiling), monthCostUsd: Number(row?.spent ?? 0) };
}
