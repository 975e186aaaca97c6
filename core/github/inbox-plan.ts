/**
 * Which of an organisation's unhandled webhook deliveries its inbox acts on now: in receipt
 * order, the first unhandled one of each order key (one issue or pull request, one head
 * commit: webhook-normalise.ts orderKey), while fewer than `sideBySide` are being acted on. A
 * delivery left `handling` by an inbox that ended holds its key until it is `staleMs` old,
 * then is claimed again. Pure: the inbox (durable-objects/forge/inbox.ts) reads and claims.
 *
 * @example planDeliveries(rows, new Map(), Date.now(), { sideBySide: 8, staleMs: 300_000 }).start // ["row-1", "row-3"]
 */

export interface UnhandledDelivery {
  id: string;
  key: string;
  outcome: string;
  /** When it was claimed, for a `handling` one (epoch ms). */
  claimedAt: number | null;
}

export interface DeliveryPlan {
  /** Row ids to claim and act on now, in receipt order. */
  start: string[];
  /** When the earliest abandoned `handling` delivery becomes claimable again, or null. */
  reclaimAt: number | null;
}

/** `rows` oldest first; `acting` row id → key of those this inbox acts on now. */
export function planDeliveries(
  rows: readonly UnhandledDelivery[],
  acting: ReadonlyMap<string, string>,
  now: number,
  limits: { sideBySide: number; staleMs: number },
): DeliveryPlan {
  const busy = new Set(acting.values());
  const start: string[] = [];
  let reclaimAt: number | null = null;
  for (const row of rows) {
    if (acting.has(row.id) || busy.has(row.key)) continue;
    // Every later delivery of this key waits for this one, whether it starts now or not.
    busy.add(row.key);
    if (row.outcome === "handling") {
      const claimableAt = (row.claimedAt ?? 0) + limits.staleMs;
      if (claimableAt > now) {
        reclaimAt = reclaimAt === null ? claimableAt : Math.min(reclaimAt, claimableAt);
        continue;
      }
    }
    if (acting.size + start.length >= limits.sideBySide) continue;
    start.push(row.id);
  }
  return { start, reclaimAt };
}
