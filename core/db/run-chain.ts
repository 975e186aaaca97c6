import { and, asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "./client";
import { groupMessages } from "./schema";

/**
 * The latest run of the chain `runId` belongs to, following continued_by_run_id (CHAIN-018);
 * `runId` itself when it was not continued. Bounded, so a corrupted loop cannot spin.
 * @example await latestRunOfChain(db, rootId) // the id of the chain's last run
 */
export async function latestRunOfChain(db: Database, runId: string): Promise<string> {
  const result = await db.execute<{ id: string }>(sql`
    with recursive chain(id, next, depth) as (
      select id, metadata->>'continued_by_run_id', 1 from runs where id = ${runId}::uuid
      union all
      select r.id, r.metadata->>'continued_by_run_id', c.depth + 1
      from chain c join runs r on r.id = c.next::uuid
      where c.depth < 32
    )
    select id from chain order by depth desc limit 1`);
  return result.rows[0]?.id ?? runId;
}

/**
 * The claim of a continuation's opening (CHAIN-008): in the same statement as the new run,
 * the run it continues records continued_by_run_id and completes. Returns a row only when
 * that run has no continuation yet, so a chain never forks and a retry writes nothing twice.
 */
export function continuationClaim(previousRunId: string, nextRunId: string): SQL {
  return sql`update runs set status = 'completed', completed_at = coalesce(completed_at, now()), updated_at = now(),
    metadata = metadata || jsonb_build_object('continued_by_run_id', ${nextRunId}::text)
    where id = ${previousRunId}::uuid and not (metadata ? 'continued_by_run_id')
    returning id`;
}

/** The guild chat's rows at the given seqs, in order: a group continuation's State history, as its delivery chose it. */
export async function groupRowsAt(db: Database, guildId: string, seqs: readonly number[]) {
  if (!seqs.length) return [];
  return db
    .select({ seq: groupMessages.seq, authorName: groupMessages.authorName, content: groupMessages.content, createdAt: groupMessages.createdAt })
    .from(groupMessages)
    .where(and(eq(groupMessages.guildId, guildId), inArray(groupMessages.seq, [...seqs])))
    .orderBy(asc(groupMessages.seq));
}
