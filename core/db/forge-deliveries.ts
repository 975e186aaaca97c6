/**
 * The rows of the GitHub App's webhook deliveries (forge_deliveries): the door's one insert,
 * which is the dedup, and the inbox's reads and claims. The rows are the queue: a delivery is
 * `pending` until the organisation's inbox claims it (`handling`, with `handled_at` holding
 * when it was claimed until the outcome overwrites it), then accepted, ignored or failed.
 */
import { and, asc, eq, inArray, lt, or, sql } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { forgeDeliveries } from "./schema";

export type DeliveryRow = typeof forgeDeliveries.$inferSelect;
export type NewDelivery = typeof forgeDeliveries.$inferInsert;

/** Why a delivery of an installation no organisation holds is not acted on. */
export const UNHELD = "installation not connected";

/** What the door makes of a delivery, should an organisation hold its installation. */
export type DeliveryFate = { outcome: "pending"; eventData: Record<string, unknown> } | { outcome: "ignored"; detail: string };

export interface StoredDelivery {
  id: string;
  organisationId: string | null;
  outcome: string;
  detail: string | null;
}

/**
 * Stores a delivery unless one with its delivery id or its body is stored already (null): one
 * statement, so of any number of identical deliveries arriving at once exactly one is stored.
 * The same statement finds the organisation holding the installation now (a disconnected
 * connection holds nothing); with none, the delivery is kept ignored, UNHELD.
 *
 * @example (await storeDelivery(db, row, { outcome: "ignored", detail: "ping is not acted on" })) ?? "duplicate"
 */
export async function storeDelivery(
  db: AnyDatabase,
  row: Omit<NewDelivery, "organisationId" | "outcome" | "detail" | "eventData" | "handledAt">,
  fate: DeliveryFate,
): Promise<StoredDelivery | null> {
  const holder =
    row.installationId == null
      ? sql`null::uuid`
      : sql`(select organisation_id from github_connections where installation_id = ${row.installationId} and disconnected_at is null limit 1)`;
  const unheld = sql`${holder} is null`;
  const detail = fate.outcome === "ignored" ? fate.detail : null;
  const eventData = JSON.stringify(fate.outcome === "pending" ? fate.eventData : {});
  const [stored] = await db
    .insert(forgeDeliveries)
    .values({
      ...row,
      organisationId: holder,
      outcome: sql`case when ${unheld} then 'ignored' else ${fate.outcome}::text end`,
      detail: sql`case when ${unheld} then ${UNHELD}::text else ${detail}::text end`,
      eventData: sql`case when ${unheld} then '{}'::jsonb else ${eventData}::jsonb end`,
      handledAt: sql`case when ${unheld} or ${fate.outcome}::text = 'ignored' then now() end`,
    })
    .onConflictDoNothing()
    .returning({ id: forgeDeliveries.id, organisationId: forgeDeliveries.organisationId, outcome: forgeDeliveries.outcome, detail: forgeDeliveries.detail });
  return stored ?? null;
}

/** The organisation's deliveries still to act on or being acted on, oldest first. */
export function unhandledDeliveries(db: AnyDatabase, organisationId: string, limit: number): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(forgeDeliveries)
    .where(and(eq(forgeDeliveries.organisationId, organisationId), inArray(forgeDeliveries.outcome, ["pending", "handling"])))
    .orderBy(asc(forgeDeliveries.receivedAt), asc(forgeDeliveries.id))
    .limit(limit);
}

/**
 * Claims a delivery to act on it: pending, or left handling since before `staleBefore` (the
 * object acting on it ended mid-way). False when another claim won, or it moved on.
 */
export async function claimDelivery(db: AnyDatabase, id: string, now: Date, staleBefore: Date): Promise<boolean> {
  const claimed = await db
    .update(forgeDeliveries)
    .set({ outcome: "handling", handledAt: now })
    .where(
      and(
        eq(forgeDeliveries.id, id),
        or(eq(forgeDeliveries.outcome, "pending"), and(eq(forgeDeliveries.outcome, "handling"), lt(forgeDeliveries.handledAt, staleBefore))),
      ),
    )
    .returning({ id: forgeDeliveries.id });
  return claimed.length > 0;
}

/** What acting on a claimed delivery came to. */
export async function settleDelivery(
  db: AnyDatabase,
  id: string,
  result: { outcome: "accepted" | "ignored"; detail: string } | { outcome: "failed"; error: string },
  now: Date,
): Promise<void> {
  await db
    .update(forgeDeliveries)
    .set({ outcome: result.outcome, detail: "detail" in result ? result.detail : null, error: "error" in result ? result.error : null, handledAt: now })
    .where(and(eq(forgeDeliveries.id, id), eq(forgeDeliveries.outcome, "handling")));
}

/** How long a delivery is kept: its record on the Repositories tab, and its dedup key. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60_000;

/**
 * Deletes the organisation's handled deliveries received before `before`, and those of
 * installations no organisation holds; a pending one stays until it is acted on. GitHub
 * redelivers only within days, so a dedup key older than the retention guards nothing.
 */
export async function sweepDeliveries(db: AnyDatabase, organisationId: string, before: Date): Promise<number> {
  const deleted = await db
    .delete(forgeDeliveries)
    .where(
      and(
        lt(forgeDeliveries.receivedAt, before),
        inArray(forgeDeliveries.outcome, ["accepted", "ignored", "failed"]),
        or(eq(forgeDeliveries.organisationId, organisationId), sql`${forgeDeliveries.organisationId} is null`),
      ),
    )
    .returning({ id: forgeDeliveries.id });
  return deleted.length;
}
