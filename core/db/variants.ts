/**
 * What-if variants as stored (table prompt_variants): apart from the run's transcript, with
 * who asked, the settings, the answer (redacted) and its usage. A pending variant holds its
 * worst-case cost against the spend limit (reserved_usd); a completed variant's usage
 * increments the same five counters an assistant row does, in the same statement that
 * records its answer and lets its hold go.
 */
import { eq, sql } from "drizzle-orm";
import { type Reservation, reservation, toMicros } from "../usage/reservation";
import { effectiveSpendLimit } from "../usage/spend-limit";
import type { VariantSettings } from "../variants/request";
import type { Database } from "./client";
import { organisations, promptVariants } from "./schema";
import { heldSpend, staleHolds } from "./spend-holds";
import { type UsageFigures, type UsageScope, usageCounterUpdates } from "./usage-counters";

export type VariantRow = typeof promptVariants.$inferSelect;

/** A variant's answer as stored: the model's words, as an assistant row holds them, redacted. */
export interface VariantAnswer {
  content: string | null;
  reasoning: string | null;
  tool_calls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  finish_reason: string | null;
  /** The model the provider said answered. */
  model: string | null;
}

/** A variant's failure: a code and a short redacted message, as a run error has. */
export interface VariantError {
  code: string;
  message: string;
  http_status?: number | null;
}

export interface NewVariant {
  /** From batchIds: a batch reads back in the order asked. */
  id: string;
  organisationId: string;
  runId: string;
  messageSeq: number;
  batchId: string;
  requestedBy: string | null;
  settings: VariantSettings;
  promptHash: string;
  /** The call's worst-case cost in USD (worstCaseCost), held until the variant settles. */
  reservedUsd: number;
}

/** The batch's variants, pending, in the order asked, each holding its worst case. */
export async function insertVariants(db: Pick<Database, "insert">, variants: NewVariant[]): Promise<VariantRow[]> {
  if (variants.length === 0) return [];
  return db
    .insert(promptVariants)
    .values(variants.map((v) => ({ ...v, reservedUsd: v.reservedUsd.toFixed(6), status: "pending" })))
    .returning();
}

/**
 * Inserts the batch's variants, pending with their holds, if their worst cases together fit
 * under the organisation's spend limit beside this month's spend and the holds of calls in
 * flight; else inserts nothing and answers the refusal. One transaction with the
 * organisation's row locked (`for no key update`: rows that merely reference the
 * organisation are not held up), so concurrent batches decide one after another, each
 * seeing the holds of those before it; the figures are read after the lock, in a statement
 * of their own, so they include everything committed before it. Holds past their time are
 * marked failed on the way.
 */
export async function reserveVariants(
  db: Database,
  organisationId: string,
  month: string,
  variants: NewVariant[],
): Promise<{ ok: true; rows: VariantRow[] } | Extract<Reservation, { fits: false }>> {
  const askedUsd = variants.reduce((sum, v) => sum + toMicros(v.reservedUsd), 0) / 1e6;
  return db.transaction(async (tx) => {
    const [org] = await tx
      .select({ limit: organisations.monthlySpendLimitUsd, ceiling: organisations.spendCeilingUsd })
      .from(organisations)
      .where(eq(organisations.id, organisationId))
      .for("no key update");
    const id = sql`${organisationId}::uuid`;
    const figures = await tx.execute<{ spent: string; reserved: string }>(sql`
      with ${staleHolds(id)}
      select coalesce((select cost_usd from org_monthly_usage_totals where organisation_id = ${id} and month = ${month}), 0)::text as spent,
        ${heldSpend(id)}::text as reserved`);
    const room = figures.rows[0]!;
    const decided = reservation(
      { limitUsd: effectiveSpendLimit(org?.limit, org?.ceiling), spentUsd: Number(room.spent), reservedUsd: Number(room.reserved) },
      askedUsd,
    );
    if (!decided.fits) return decided;
    return { ok: true as const, rows: await insertVariants(tx, variants) };
  });
}

/**
 * A variant's answer with its usage, and the five counters incremented, in one statement
 * (USAGE-003 for what-if calls). Returns the organisation's spend this month.
 */
export async function completeVariant(
  db: Database,
  id: string,
  outcome: { answer: VariantAnswer; latencyMs: number; usage: UsageFigures },
  scope: UsageScope,
): Promise<{ monthCostUsd: number }> {
  const { usage } = outcome;
  const result = await db.execute<{ month_cost: string }>(sql`
    with v as (
      update prompt_variants set status = 'completed', answer = ${JSON.stringify(outcome.answer)}::jsonb,
        input_tokens = ${usage.inputTokens}, output_tokens = ${usage.outputTokens},
        cached_input_tokens = ${usage.cachedInputTokens}, reasoning_tokens = ${usage.reasoningTokens},
        cost_usd = ${usage.costUsd.toFixed(6)}::numeric, reserved_usd = 0, latency_ms = ${outcome.latencyMs}, completed_at = now()
      where id = ${id} returning 1
    ), ${usageCounterUpdates(scope, usage)}
    select mo.cost_usd::text as month_cost from v, mo, a, g, o, w`);
  return { monthCostUsd: Number(result.rows[0]?.month_cost ?? 0) };
}

/** A variant that made no answer: its error, no usage, and its hold let go. */
export async function failVariant(db: Database, id: string, error: VariantError, latencyMs: number | null): Promise<void> {
  await db.execute(sql`
    update prompt_variants set status = 'failed', error = ${JSON.stringify(error)}::jsonb, reserved_usd = 0, latency_ms = ${latencyMs}, completed_at = now()
    where id = ${id}`);
}

/**
 * The batch's variants still pending marked failed and their holds let go: what a batch does
 * when something past the model call threw, so a hold does not wait for its time to run out.
 */
export async function failPendingVariants(db: Database, batchId: string, error: VariantError): Promise<void> {
  await db.execute(sql`
    update prompt_variants set status = 'failed', error = ${JSON.stringify(error)}::jsonb, reserved_usd = 0, completed_at = now()
    where batch_id = ${batchId} and status = 'pending'`);
}

/** A variant as the API answers it. */
export type WireVariant = ReturnType<typeof toWireVariant>;

export function toWireVariant(row: VariantRow) {
  return {
    id: row.id,
    run_id: row.runId,
    message_seq: row.messageSeq,
    batch_id: row.batchId,
    requested_by: row.requestedBy,
    settings: row.settings as VariantSettings,
    status: row.status as "pending" | "completed" | "failed",
    answer: (row.answer as VariantAnswer | null) ?? null,
    error: (row.error as VariantError | null) ?? null,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    cached_input_tokens: row.cachedInputTokens,
    reasoning_tokens: row.reasoningTokens,
    cost_usd: Number(row.costUsd).toFixed(6),
    latency_ms: row.latencyMs,
    prompt_hash: row.promptHash,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}
