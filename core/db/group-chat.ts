import { and, asc, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type * as z from "zod";
import type { PublicRow } from "../group/wake";
import type { GroupMessage } from "../validation/group-chat";
import type { Database } from "./client";
import { toWire } from "./rows";
import { agents, groupCursors, groupMessages } from "./schema";

/** A stored public row of a guild's group chat. */
export type GroupMessageRow = typeof groupMessages.$inferSelect;

/** A post as the guild object appends it: the public row before it has a seq and a time. */
export type NewGroupMessage = Omit<PublicRow, "seq" | "createdAt"> & { guildId: string };

/** A public row as the API and the guild's event stream show it. */
export type GroupMessageWire = z.infer<typeof GroupMessage>;

/** The row in the API's words: snake_case and ISO times, without the storage id. */
export const groupMessageWire = (row: GroupMessageRow) => toWire(row, ["id"]) as GroupMessageWire;

/** The guild's latest seq as SQL (0 for an empty chat), so each statement reads it itself. */
const latestSeqOf = (guildId: string) =>
  sql<number>`(select coalesce(max(${groupMessages.seq}), 0) from ${groupMessages} where ${groupMessages.guildId} = ${guildId})`;

/**
 * Appends a public row with the guild's next seq. The guild object is the only writer
 * and posts one at a time; the unique (guild_id, seq) constraint backs that up.
 */
export async function appendGroupMessage(db: Database, input: NewGroupMessage): Promise<GroupMessageRow> {
  const [row] = await db
    .insert(groupMessages)
    .values({
      ...input,
      seq: sql`${latestSeqOf(input.guildId)} + 1`,
    })
    .returning();
  return row!;
}

/**
 * A page of the chat in seq order: after `afterSeq`, or the `limit` rows before
 * `beforeSeq`, or the latest `limit` rows. One extra row tells whether more exist.
 */
export async function listGroupMessages(
  db: Database,
  guildId: string,
  page: { afterSeq?: number; beforeSeq?: number; limit: number },
): Promise<{ rows: GroupMessageRow[]; hasMore: boolean }> {
  const forward = page.afterSeq !== undefined;
  const rows = await db
    .select()
    .from(groupMessages)
    .where(
      and(
        eq(groupMessages.guildId, guildId),
        forward ? gt(groupMessages.seq, page.afterSeq!) : undefined,
        page.beforeSeq !== undefined ? lt(groupMessages.seq, page.beforeSeq) : undefined,
      ),
    )
    .orderBy(forward ? asc(groupMessages.seq) : desc(groupMessages.seq))
    .limit(page.limit + 1);
  const hasMore = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  return { rows: forward ? kept : kept.reverse(), hasMore };
}

/** The guild's agents that take part in its chat: the non-archived ones. */
export async function groupParticipants(db: Database, guildId: string): Promise<Array<{ id: string; name: string }>> {
  return db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(and(eq(agents.guildId, guildId), isNull(agents.archivedAt)))
    .orderBy(asc(agents.createdAt));
}

/**
 * What a delivery reads, in one statement: how far the agent has been delivered its guild's
 * chat (GROUP-011), the latest `freshMax` rows after that, and State's latest `candidatesMax`
 * rows through the newest of those. The cursor moves when a delivery completes; should the
 * object stop between completing the run and moving the cursor, the group runs themselves
 * say how far deliveries went, so `cursor` is the further of the two and nothing is
 * delivered twice. `storedCursor` below `cursor` means the stored one should catch up.
 */
export async function deliveryRows(db: Database, agentId: string, guildId: string, freshMax: number, candidatesMax: number) {
  const asPublic = (m: string) =>
    sql.raw(`json_build_object('seq', ${m}.seq, 'authorKind', ${m}.author_kind, 'authorAgentId', ${m}.author_agent_id,
    'authorName', ${m}.author_name, 'content', ${m}.content, 'tagged', ${m}.tagged, 'depth', ${m}.depth, 'createdAt', ${m}.created_at) order by ${m}.seq`);
  const result = await db.execute<{
    stored: number;
    cursor: number;
    fresh: Array<PublicRow & { createdAt: string }>;
    candidates: Array<PublicRow & { createdAt: string }>;
  }>(sql`
    with c as (
      select coalesce((select delivered_through_seq from group_cursors where agent_id = ${agentId}), 0) as stored,
             coalesce((select max((metadata->>'group_chat_through_seq')::int) from runs where agent_id = ${agentId} and kind = 'group'), 0) as delivered
    ),
    fresh as (
      select * from group_messages where guild_id = ${guildId} and seq > (select greatest(stored, delivered) from c)
      order by seq desc limit ${freshMax}
    ),
    candidates as (
      select * from group_messages where guild_id = ${guildId} and seq <= (select max(seq) from fresh)
      order by seq desc limit ${candidatesMax}
    )
    select c.stored, greatest(c.stored, c.delivered) as cursor,
      coalesce((select json_agg(${asPublic("f")}) from fresh f), '[]'::json) as fresh,
      coalesce((select json_agg(${asPublic("d")}) from candidates d), '[]'::json) as candidates
    from c`);
  const row = result.rows[0]!;
  const toRow = (r: PublicRow & { createdAt: string }): PublicRow => ({ ...r, createdAt: new Date(r.createdAt) });
  return { storedCursor: Number(row.stored), cursor: Number(row.cursor), fresh: row.fresh.map(toRow), candidates: row.candidates.map(toRow) };
}

/** A new agent's cursor, at the guild's latest seq: it takes part in the chat from now on. */
export async function startCursor(db: Database, agentId: string, guildId: string): Promise<void> {
  await db.insert(groupCursors).values({
    agentId,
    guildId,
    deliveredThroughSeq: latestSeqOf(guildId),
  });
}

/** Moves the agent's cursor forward to `throughSeq` (never back). */
export async function advanceCursor(db: Database, agentId: string, guildId: string, throughSeq: number): Promise<void> {
  await db
    .insert(groupCursors)
    .values({ agentId, guildId, deliveredThroughSeq: throughSeq })
    .onConflictDoUpdate({
      target: groupCursors.agentId,
      set: { deliveredThroughSeq: sql`greatest(${groupCursors.deliveredThroughSeq}, ${throughSeq})`, guildId, updatedAt: sql`now()` },
    });
}

/** The guild's latest seq (0 for an empty chat). */
export async function latestGroupSeq(db: Database, guildId: string): Promise<number> {
  const result = await db.execute<{ seq: number }>(sql`select ${latestSeqOf(guildId)} as seq`);
  return Number(result.rows[0]?.seq ?? 0);
}
