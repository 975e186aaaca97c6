import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { MessageWire } from "../events/message";
import type { ChatPayload, StoredRow } from "../projection/types";
import type { Database } from "./client";
import { messages, runs } from "./schema";
import { heldSpend } from "./spend-holds";
import { type UsageFigures, type UsageScope, usageCounterUpdates } from "./usage-counters";

export type { UsageFigures, UsageScope } from "./usage-counters";

/** The roles of transcript rows. */
export type Role = "system" | "user" | "assistant" | "tool";

/** A committed transcript row as the API and SSE carry it. */
/** A row as the API and the event streams send it (core/events/message.ts). */
export type WireRow = MessageWire;

export interface NewRow {
  runId: string;
  seq: number;
  generation: number | null;
  role: Role;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  tokenCount: number;
}

/** Rows of a run in seq order, after `afterSeq` when given. */
export async function loadRows(db: Database, runId: string, afterSeq = -1, limit?: number) {
  const query = db
    .select()
    .from(messages)
    .where(and(eq(messages.runId, runId), gt(messages.seq, afterSeq)))
    .orderBy(asc(messages.seq));
  return limit === undefined ? query : query.limit(limit);
}

export function toWireRow(row: typeof messages.$inferSelect): WireRow {
  return {
    seq: row.seq,
    generation: row.generation,
    role: row.role as Role,
    payload: row.payload as WireRow["payload"],
    metadata: row.metadata as WireRow["metadata"],
    cost_usd: row.costUsd,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * A user row that opens a generation, and the run's generation number, in ONE statement:
 * a failure between the two can never leave a row of a generation the run does not know.
 * `alongside` reads more in the same statement (what the generation's start needs): its
 * columns are selected beside the row's, and handed to `take` once it committed. Its
 * `writes` are further data-modifying steps (`name as (update …)`) that commit with the row.
 *
 * @example
 *   await appendOpeningRow(db, { ...draft, generation: 3 }, { writes: sql`d as (update task_messages set … returning 1)` });
 */
export async function appendOpeningRow(
  db: Database,
  row: NewRow & { generation: number },
  alongside: { columns?: SQL; take?: (values: Record<string, unknown>) => void; writes?: SQL } = {},
): Promise<WireRow> {
  const result = await db.execute<{ created_at: string } & Record<string, unknown>>(sql`
    with m as (
      insert into messages (run_id, seq, generation, role, payload, metadata, token_count)
      values (${row.runId}, ${row.seq}, ${row.generation}, ${row.role}, ${JSON.stringify(row.payload)}::jsonb,
              ${JSON.stringify(row.metadata)}::jsonb, ${row.tokenCount})
      returning created_at
    ), r as (
      update runs set generation = ${row.generation}, updated_at = now() where id = ${row.runId} returning 1
    )${alongside.writes ? sql`, ${alongside.writes}` : sql``}
    select m.created_at::text as created_at${alongside.columns ? sql`, ${alongside.columns}` : sql``} from m, r`);
  const created = result.rows[0];
  if (!created) throw new Error(`run ${row.runId} does not exist`);
  alongside.take?.(created);
  return {
    seq: row.seq,
    generation: row.generation,
    role: row.role,
    payload: row.payload as WireRow["payload"],
    metadata: row.metadata as WireRow["metadata"],
    cost_usd: null,
    created_at: new Date(created.created_at).toISOString(),
  };
}

/** The stored row at `seq`, or null: how a retried write learns whether its first try committed. */
export async function rowAt(db: Database, runId: string, seq: number): Promise<WireRow | null> {
  const [row] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.runId, runId), eq(messages.seq, seq)))
    .limit(1);
  return row ? toWireRow(row) : null;
}

/** A database row as the projection reads it. */
export function storedRow(row: {
  seq: number;
  generation: number | null;
  role: string;
  payload: unknown;
  metadata: unknown;
  tokenCount: number | null;
}): StoredRow {
  return {
    seq: row.seq,
    generation: row.generation,
    role: row.role as StoredRow["role"],
    payload: row.payload as ChatPayload,
    metadata: (row.metadata ?? {}) as StoredRow["metadata"],
    tokenCount: row.tokenCount ?? 0,
  };
}

/** Appends one row (user, tool, or an unpriced assistant row): one round trip. */
export async function appendRow(db: Database, row: NewRow): Promise<WireRow> {
  const [inserted] = await db
    .insert(messages)
    .values({
      runId: row.runId,
      seq: row.seq,
      generation: row.generation,
      role: row.role,
      payload: row.payload,
      metadata: row.metadata,
      tokenCount: row.tokenCount,
    })
    .returning();
  return toWireRow(inserted!);
}

/**
 * Commits an assistant row with its cost and increments the five usage counters
 * (agent, guild, organisation, global, org month; `usageCounterUpdates`) in ONE statement: data-modifying
 * CTEs run atomically, so the row and the counters commit together in one round trip.
 * Returns the committed row, the organisation's spend this month and the holds of calls in
 * flight (read in the same statement), which the loop keeps for the spend-limit check before
 * its next call. `ending`: the answer ends its generation, and the run's change (updateRun's)
 * commits with it, one round trip and one transaction fewer.
 */
export async function commitAssistantRow(
  db: Database,
  row: NewRow,
  scope: UsageScope,
  usage: UsageFigures,
  ending?: RunChange,
): Promise<{ row: WireRow; monthCostUsd: number; reservedUsd: number }> {
  const cost = usage.costUsd.toFixed(6);
  const result = await db.execute<{ seq: number; created_at: string; month_cost: string; reserved: string }>(sql`
    with m as (
      insert into messages (run_id, seq, generation, role, payload, metadata, cost_usd, token_count)
      values (${row.runId}, ${row.seq}, ${row.generation}, ${row.role}, ${JSON.stringify(row.payload)}::jsonb,
              ${JSON.stringify(row.metadata)}::jsonb, ${cost}::numeric, ${row.tokenCount})
      returning seq, created_at
    ), ${usageCounterUpdates(scope, usage)}${ending ? sql`, e as (${updateRunStatement(db, row.runId, ending).getSQL()})` : sql``}
    select m.seq, m.created_at::text as created_at, mo.cost_usd::text as month_cost, ${heldSpend(sql`${scope.organisationId}::uuid`)}::text as reserved
    from m, mo, a, g, o, w`);
  const out = result.rows[0]!;
  return {
    row: {
      seq: row.seq,
      generation: row.generation,
      role: row.role,
      payload: row.payload as WireRow["payload"],
      metadata: row.metadata as WireRow["metadata"],
      cost_usd: cost,
      created_at: new Date(out.created_at).toISOString(),
    },
    monthCostUsd: Number(out.month_cost),
    reservedUsd: Number(out.reserved),
  };
}

/** A run error entry: `{code, message, generation, operation, at, ...}` appended to runs.errors. */
export interface RunError {
  code: string;
  message: string;
  generation: number | null;
  operation: string;
  at: string;
  [key: string]: unknown;
}

/** What `updateRun` changes on a run; what is left out stays as it is. */
export interface RunChange {
  status?: "active" | "completed";
  errors?: RunError[];
  metadata?: Record<string, unknown>;
  generation?: number;
  archivedAt?: Date | null;
}

/**
 * Ends a generation's bookkeeping in one statement: appends errors (each at most once),
 * sets the status, and merges metadata.
 */
export async function updateRun(db: Database, runId: string, change: RunChange): Promise<void> {
  await updateRunStatement(db, runId, change);
}

/** updateRun's statement, not yet run: the answer that ends a generation carries it in its own statement. */
function updateRunStatement(db: Pick<Database, "update">, runId: string, change: RunChange) {
  return db
    .update(runs)
    .set({
      ...(change.archivedAt !== undefined ? { archivedAt: change.archivedAt } : {}),
      ...(change.status ? { status: change.status, completedAt: change.status === "completed" ? sql`now()` : null } : {}),
      // Entries already there are not appended again: a retry after a lost answer is harmless.
      ...(change.errors?.length
        ? {
            errors: sql`${runs.errors} || coalesce((select jsonb_agg(e) from jsonb_array_elements(${JSON.stringify(change.errors)}::jsonb) as e where not ${runs.errors} @> jsonb_build_array(e)), '[]'::jsonb)`,
          }
        : {}),
      ...(change.metadata ? { metadata: sql`${runs.metadata} || ${JSON.stringify(change.metadata)}::jsonb` } : {}),
      ...(change.generation !== undefined ? { generation: change.generation } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(runs.id, runId));
}
