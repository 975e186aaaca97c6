import { and, desc, eq, gt, sql } from "drizzle-orm";
import type { Database } from "../../../../core/db/client";
import { notes, records } from "../../../../core/db/schema";
import type { AgentRecord, NotesRecordsStore } from "../../../../core/tools/types";

/** Notes and records of the native tools, in Postgres, scoped to one agent per call. */
export class PostgresToolStore implements NotesRecordsStore {
  constructor(private readonly db: Database) {}

  async noteWrite(agentId: string, title: string, body: string) {
    const [row] = await this.db
      .insert(notes)
      .values({ agentId, title, body })
      .onConflictDoUpdate({ target: [notes.agentId, notes.title], set: { body, updatedAt: sql`now()` } })
      .returning({ created: sql<boolean>`(xmax = 0)` });
    return { created: Boolean(row?.created) };
  }

  async noteRead(agentId: string, title: string) {
    const [row] = await this.db
      .select()
      .from(notes)
      .where(and(eq(notes.agentId, agentId), eq(notes.title, title)))
      .limit(1);
    return row ? { title: row.title, body: row.body, updatedAt: row.updatedAt } : null;
  }

  async noteList(agentId: string) {
    return this.db.select({ title: notes.title, updatedAt: notes.updatedAt }).from(notes).where(eq(notes.agentId, agentId)).orderBy(notes.title);
  }

  async noteDelete(agentId: string, title: string) {
    const deleted = await this.db
      .delete(notes)
      .where(and(eq(notes.agentId, agentId), eq(notes.title, title)))
      .returning({ id: notes.id });
    return deleted.length > 0;
  }

  async recordCreate(agentId: string, runId: string, input: { kind: string; content: string; data?: unknown }): Promise<AgentRecord> {
    const [row] = await this.db
      .insert(records)
      .values({ agentId, runId, kind: input.kind, content: input.content, data: input.data ?? null })
      .returning();
    return toRecord(row!);
  }

  async recordList(agentId: string, options: { since?: Date; limit: number }) {
    const rows = await this.db
      .select()
      .from(records)
      .where(and(eq(records.agentId, agentId), options.since ? gt(records.createdAt, options.since) : undefined))
      .orderBy(desc(records.createdAt), desc(records.id))
      .limit(options.limit);
    return rows.map(toRecord);
  }
}

function toRecord(row: typeof records.$inferSelect): AgentRecord {
  return { id: row.id, kind: row.kind, content: row.content, data: row.data, runId: row.runId, createdAt: row.createdAt };
}
