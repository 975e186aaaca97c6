import { eq, sql } from "drizzle-orm";
import type { Database } from "./client";
import { memories } from "./schema";

/** The agent's Memory document ("" when it has none yet). */
export async function readMemory(db: Database, agentId: string): Promise<{ content: string; updatedAt: Date | null }> {
  const [row] = await db.select().from(memories).where(eq(memories.agentId, agentId)).limit(1);
  return { content: row?.content ?? "", updatedAt: row?.updatedAt ?? null };
}

/** Replaces the agent's Memory document (memory_write, or the operator in the console). */
export async function writeMemory(db: Database, agentId: string, content: string): Promise<void> {
  await db
    .insert(memories)
    .values({ agentId, content })
    .onConflictDoUpdate({ target: memories.agentId, set: { content, updatedAt: sql`now()` } });
}
