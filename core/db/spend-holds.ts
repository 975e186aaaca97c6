import { type SQL, sql } from "drizzle-orm";
import { RESERVATION_TTL_MS } from "../usage/reservation";

/** A hold older than this no longer counts (RESERVATION_TTL_MS): its call ended long ago, or its process died. */
const LIVE = sql.raw(`now() - interval '${RESERVATION_TTL_MS / 1000} seconds'`);

/**
 * The organisation's holds of calls in flight in USD, as a scalar subquery: the pending
 * what-if variants' worst-case costs (core/usage/reservation.ts), through the partial index
 * of pending rows. Read beside the month's spend wherever the spend limit is checked.
 */
export function heldSpend(organisationId: SQL): SQL {
  return sql`(select coalesce(sum(h.reserved_usd), 0) from prompt_variants h
    where h.organisation_id = ${organisationId} and h.status = 'pending' and h.created_at >= ${LIVE})`;
}

/**
 * The organisation's pending holds past their time marked failed, as a CTE `stale` of the
 * caller's statement: whatever held them stopped without settling.
 */
export function staleHolds(organisationId: SQL): SQL {
  const error = JSON.stringify({ code: "variant.interrupted", message: "The call was interrupted before it answered; its cost is unknown" });
  return sql`stale as (
      update prompt_variants set status = 'failed', error = ${error}::jsonb, reserved_usd = 0, completed_at = now()
      where organisation_id = ${organisationId} and status = 'pending' and created_at < ${LIVE}
      returning 1
    )`;
}
