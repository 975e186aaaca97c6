import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import { SCRIPT_LANGUAGE, type ScriptAuthor, ScriptLimitReached, type ScriptWrite, scriptPath } from "../scripts/types";
import type { Database } from "./client";
import { agents, artifacts, artifactVersions, runs } from "./schema";

/** A catalog row: an artifact of kind `script` (SCRIPT-002). */
export type ScriptRow = typeof artifacts.$inferSelect & { kind: "script" };
/** One version of a script, for its History. */
export type VersionRow = typeof artifactVersions.$inferSelect;

const KIND = "script";
/** Every script lives under this artifact path; its key is the script name (SCRIPT-002). */
const PATH = "scripts";

/** The agent a write was for no longer exists. */
export class ScriptOwnerMissing extends Error {
  constructor(readonly agentId: string) {
    super(`no agent ${agentId}`);
  }
}

/**
 * SHA-256 hex of the source's UTF-8 exactly as stored (SCRIPT-006); WebCrypto, the same in
 * workerd and Node.
 */
export async function sourceHash(source: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(source));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const ofAgent = (agentId: string) => and(eq(artifacts.agentId, agentId), eq(artifacts.kind, KIND));

/**
 * The agent's script catalog in Postgres, canonical for scripts (SCRIPT-002). The HTTP routes
 * and the script tools both write through it; each write is one transaction.
 */
export const scriptCatalog = {
  /** Every script of the agent, by name. */
  async list(db: Database, agentId: string): Promise<ScriptRow[]> {
    return (await db.select().from(artifacts).where(ofAgent(agentId)).orderBy(asc(artifacts.key))) as ScriptRow[];
  },

  async get(db: Database, agentId: string, name: string): Promise<ScriptRow | null> {
    const [row] = await db
      .select()
      .from(artifacts)
      .where(and(ofAgent(agentId), eq(artifacts.key, name)))
      .limit(1);
    return (row as ScriptRow | undefined) ?? null;
  },

  /**
   * Creates or replaces each script, all or nothing (a recipe, SCRIPT-016). New names past
   * the agent's max_scripts are refused with ScriptLimitReached; a replace never counts
   * (SCRIPT-013..015). A replace bumps the version; every write records a version with its
   * author. The agent's row is locked first, so simultaneous writes count one after another:
   * an agent one short of its cap gets exactly one more.
   *
   * @example await scriptCatalog.write(db, agentId, [write], { kind: "person", token_id, name: "CI" }) // [{ row, created: true }]
   */
  async write(db: Database, agentId: string, writes: ScriptWrite[], author: ScriptAuthor): Promise<Array<{ row: ScriptRow; created: boolean }>> {
    const names = writes.map((w) => w.name);
    if (new Set(names).size !== names.length) throw new Error("a script write names the same script twice");
    const hashes = await Promise.all(writes.map((w) => sourceHash(w.source)));
    return db.transaction(async (tx) => {
      // NO KEY UPDATE: serialises this agent's writes without blocking rows that reference it.
      const [owner] = await tx.select({ maxScripts: agents.maxScripts }).from(agents).where(eq(agents.id, agentId)).for("no key update");
      if (!owner) throw new ScriptOwnerMissing(agentId);
      const [total] = await tx.select({ n: count() }).from(artifacts).where(ofAgent(agentId));
      const existing = new Map<string, ScriptRow>();
      if (names.length > 0) {
        const found = await tx
          .select()
          .from(artifacts)
          .where(and(ofAgent(agentId), inArray(artifacts.key, names)));
        for (const row of found) existing.set(row.key, row as ScriptRow);
      }
      const fresh = names.filter((n) => !existing.has(n)).length;
      if (fresh > 0 && (total?.n ?? 0) + fresh > owner.maxScripts) throw new ScriptLimitReached(owner.maxScripts);

      const out: Array<{ row: ScriptRow; created: boolean }> = [];
      for (const [i, w] of writes.entries()) {
        const fields = { description: w.description, parameters: w.parameters, source: w.source, sourceHash: hashes[i]!, author };
        const before = existing.get(w.name);
        const [row] = before
          ? await tx
              .update(artifacts)
              .set({ ...fields, version: before.version + 1, updatedAt: sql`now()` })
              .where(eq(artifacts.id, before.id))
              .returning()
          : await tx
              .insert(artifacts)
              .values({ agentId, kind: KIND, path: PATH, key: w.name, ...fields })
              .returning();
        await tx.insert(artifactVersions).values({ artifactId: row!.id, version: row!.version, ...fields });
        out.push({ row: row as ScriptRow, created: !before });
      }
      return out;
    });
  },

  /**
   * Deletes one script; false when the agent has none of that name. The agent's active runs
   * drop it from their snapshots in the same transaction (SCRIPT-028, EXACT-025).
   */
  async remove(db: Database, agentId: string, name: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      const deleted = await tx
        .delete(artifacts)
        .where(and(ofAgent(agentId), eq(artifacts.key, name)))
        .returning({ id: artifacts.id });
      if (deleted.length === 0) return false;
      // Only the snapshot's scripts key changes, and only where it holds the name.
      await tx
        .update(runs)
        .set({
          snapshot: sql`jsonb_set(${runs.snapshot}, '{scripts}', coalesce((select jsonb_agg(e order by i) from jsonb_array_elements(${runs.snapshot}->'scripts') with ordinality as t(e, i) where e->>'name' <> ${name}), '[]'::jsonb))`,
        })
        .where(and(activeRunsOf(agentId), sql`${runs.snapshot}->'scripts' @> ${JSON.stringify([{ name }])}::jsonb`));
      return true;
    });
  },

  /** Deletes every script of the agent and empties the scripts of its active runs' snapshots; the names deleted. */
  async clear(db: Database, agentId: string): Promise<string[]> {
    return db.transaction(async (tx) => {
      const deleted = await tx.delete(artifacts).where(ofAgent(agentId)).returning({ name: artifacts.key });
      await tx
        .update(runs)
        .set({ snapshot: sql`jsonb_set(${runs.snapshot}, '{scripts}', '[]'::jsonb)` })
        .where(and(activeRunsOf(agentId), sql`jsonb_array_length(coalesce(${runs.snapshot}->'scripts', '[]'::jsonb)) > 0`));
      return deleted.map((d) => d.name).sort();
    });
  },

  /** The script's versions, newest first; null when the agent has no script of that name. */
  async history(db: Database, agentId: string, name: string): Promise<VersionRow[] | null> {
    const script = await scriptCatalog.get(db, agentId, name);
    if (!script) return null;
    return db.select().from(artifactVersions).where(eq(artifactVersions.artifactId, script.id)).orderBy(desc(artifactVersions.version));
  },
};

function activeRunsOf(agentId: string) {
  return and(eq(runs.agentId, agentId), eq(runs.status, "active"));
}

/** A script as the API and the script tools show it (SCRIPT-041): with its source and where a run finds it. */
export function scriptWire(row: ScriptRow) {
  return {
    id: row.id,
    agent_id: row.agentId,
    name: row.key,
    description: row.description,
    source: row.source,
    source_hash: row.sourceHash,
    parameters: (row.parameters ?? null) as Record<string, unknown> | null,
    version: row.version,
    author: row.author as ScriptAuthor,
    display_path: scriptPath(row.key),
    language: SCRIPT_LANGUAGE,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** One version of a script as its History shows it. */
export function scriptVersionWire(row: VersionRow) {
  return {
    version: row.version,
    description: row.description,
    source: row.source,
    source_hash: row.sourceHash,
    parameters: (row.parameters ?? null) as Record<string, unknown> | null,
    author: row.author as ScriptAuthor,
    created_at: row.createdAt.toISOString(),
  };
}
