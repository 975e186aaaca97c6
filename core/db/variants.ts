/**
 * What-if variants as stored (table prompt_variants): apart from the run's transcript, with
 * who asked, the settings, the answer (redacted) and its usage. A completed variant's usage
 * increments the same five counters an assistant row does, in the same statement as the
 * variant's answer.
 */
import { sql } from "drizzle-orm";
import type { VariantSettings } from "../variants/request";
import type { Database } from "./client";
import { promptVariants } from "./schema";
import { type UsageFigures, type UsageScope, usageCounterUpdates } from "./transcript";

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
}

/** The batch's variants, pending, in the order asked. */
export async function insertVariants(db: Database, variants: NewVariant[]): Promise<VariantRow[]> {
  if (variants.length === 0) return [];
  return db
    .insert(promptVariants)
    .values(variants.map((v) => ({ ...v, status: "pending" })))
    .returning();
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
        cost_usd = ${usage.costUsd.toFixed(6)}::numeric, latency_ms = ${outcome.latencyMs}, completed_at = now()
      where id = ${id} returning 1
    ), ${usageCounterUpdates(scope, usage)}
    select mo.cost_usd::text as month_cost from v, mo, a, g, o, w`);
  return { monthCostUsd: Number(result.rows[0]?.month_cost ?? 0) };
}

/** A variant that made no answer: its error, and no usage. */
export async function failVariant(db: Database, id: string, error: VariantError, latencyMs: number | null): Promise<void> {
  await db.execute(sql`
    update prompt_variants set status = 'failed', error = ${JSON.stringify(error)}::jsonb, latency_ms = ${latencyMs}, completed_at = now()
    where id = ${id}`);
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
