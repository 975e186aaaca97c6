import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, numeric, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id } from "./columns";
import { runs } from "./runs";
import { organisations } from "./tenancy";

/**
 * A what-if replay: one recorded model call (the assistant row `message_seq` of a run) sent
 * again with changed settings. Variants never run tools and never touch the run's
 * transcript; they live here, apart, with who asked, the settings and the answer. Their
 * cost counts against the organisation's usage and spend limit.
 */
export const promptVariants = pgTable(
  "prompt_variants",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    messageSeq: integer("message_seq").notNull(),
    // Variants asked for in one request share a batch, so the console can set them side by side.
    batchId: uuid("batch_id").notNull(),
    // The API token that asked (its id), or null when the token is gone.
    requestedBy: uuid("requested_by"),
    // What differs from the recorded call: model, base_url, api_key_secret, temperature,
    // thinking_level, max_tokens, system_prompt, tools. Never a secret value.
    settings: jsonb("settings").notNull().default({}),
    // 'pending', 'completed' or 'failed'.
    status: text("status").notNull().default("pending"),
    // The answer as the run's assistant rows hold it (content, reasoning, tool_calls), redacted.
    answer: jsonb("answer"),
    error: jsonb("error"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    cachedInputTokens: integer("cached_input_tokens").notNull().default(0),
    reasoningTokens: integer("reasoning_tokens").notNull().default(0),
    costUsd: numeric("cost_usd", { precision: 14, scale: 6 }).notNull().default("0"),
    // The worst-case cost held against the spend limit while pending (core/usage/reservation.ts);
    // 0 once settled. A pending row past RESERVATION_TTL_MS holds nothing: its process died.
    reservedUsd: numeric("reserved_usd", { precision: 14, scale: 6 }).notNull().default("0"),
    latencyMs: integer("latency_ms"),
    // sha256 of the exact request sent, as the recorded call's prompt hash is.
    promptHash: text("prompt_hash"),
    createdAt: createdAt(),
    completedAt: at("completed_at"),
  },
  (t) => [
    index("prompt_variants_run_seq_idx").on(t.runId, t.messageSeq, t.createdAt),
    index("prompt_variants_batch_idx").on(t.batchId),
    // The holds of calls in flight, summed under the organisation's row lock and by each generation's spend check.
    index("prompt_variants_pending_idx").on(t.organisationId, t.createdAt).where(sql`${t.status} = 'pending'`),
    check("prompt_variants_status_check", sql`${t.status} in ('pending', 'completed', 'failed')`),
  ],
);
