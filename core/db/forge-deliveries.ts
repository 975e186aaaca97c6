/**
 * The rows of the GitHub App's webhook deliveries (forge_deliveries): the door's one insert,
 * which is the dedup, and the inbox's reads and claims. The rows are the queue: a delivery is
 * `pending` until the organisation's inbox claims it (`handling`, with `handled_at` holding
 * when it was claimed until the outcome overwrites it), then accepted, ignored or failed.
 */
import { and, asc, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { forgeDeliveries, githubConnections } from "./schema";

export type DeliveryRow = typeof forgeDeliveries.$inferSelect;
export type NewDelivery = typeof forgeDeliveries.$inferInsert;

/**
 * Stores a delivery unless one with its delivery id or its body is stored already: one
 * statement, so of any number of identical deliveries arriving at once exactly one is stored.
 *
 * @example (await storeDelivery(db, row)) ?? "duplicate"
 */
export async function storeDelivery(db: AnyDatabase, row: NewDelivery): Promise<{ id: string } | null> {
  const [stored] = await db.insert(forgeDeliveries).values(row).onConflictDoNothing().returning({ id: forgeDeliveries.id });
  return stored ?? null;
}

/** The organisation holding the installation now (a disconnected connection holds nothing), or null. */
export async function installationHolder(db: AnyDatabase, installationId: number): Promise<string | null> {
  const [row] = await db
    .select({ organisationId: githubConnections.organisationId })
    .from(githubConnections)
    .where(and(eq(githubConnections.installationId, installationId), isNull(githubConnections.disconnectedAt)))
    .limit(1);
  return row?.organisationId ?? null;
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
