import { eq } from "drizzle-orm";
import type { Database } from "../../core/db/client";
import { agents, runs } from "../../core/db/schema";
import { loadRows, type WireRow } from "../../core/db/transcript";
import { StubCounts } from "../../core/projection/projection";
import { countToolSchemas } from "../../core/projection/token-count";
import type { ChatPayload, StoredRow } from "../../core/projection/types";
import type { RunFacts } from "../../core/runs/rules";
import type { RunSnapshot } from "../../core/runs/snapshot";

/**
 * What the agent object keeps in memory for a run it generates for: the rows with
 * their stored token counts (loaded once per wake, never recounted), the per-run stub
 * memo, and the tool schemas' count, so a step's planning cost does not grow with history.
 */
export class RunSession {
  readonly rows: StoredRow[] = [];
  readonly stubCounts = new StubCounts();
  readonly toolTokens: number;
  /** Tool results on the run so far (GEN-013 counts every generation). */
  toolResults = 0;

  constructor(
    readonly runId: string,
    public facts: RunFacts & { generation: number },
    readonly snapshot: RunSnapshot,
    readonly scope: { agentId: string; guildId: string; organisationId: string },
  ) {
    this.toolTokens = countToolSchemas(snapshot.tools);
  }

  get nextSeq(): number {
    return (this.rows.at(-1)?.seq ?? -1) + 1;
  }

  /** Adds a committed row to memory (the database has it already). */
  push(row: StoredRow): void {
    this.rows.push(row);
    if (row.role === "tool" && row.metadata.source !== "interruption") this.toolResults += 1;
  }

  /** Tool calls of the last assistant row that have no result yet (CANCEL-005). */
  unresolvedCalls(): Array<{ id: string; name: string }> {
    const lastAssistant = this.rows.findLastIndex((r) => r.role === "assistant");
    if (lastAssistant === -1) return [];
    const payload = this.rows[lastAssistant]!.payload as Extract<ChatPayload, { role: "assistant" }>;
    const answered = new Set(
      this.rows.slice(lastAssistant + 1).flatMap((r) => (r.payload.role === "tool" ? [r.payload.tool_call_id] : [])),
    );
    return (payload.tool_calls ?? []).filter((c) => !answered.has(c.id)).map((c) => ({ id: c.id, name: c.function.name }));
  }

  /** Loads a run with its agent scope and every row, in seq order. */
  static async load(db: Database, runId: string): Promise<RunSession | null> {
    const [found] = await db
      .select({ run: runs, guildId: agents.guildId, organisationId: agents.organisationId })
      .from(runs).innerJoin(agents, eq(agents.id, runs.agentId))
      .where(eq(runs.id, runId)).limit(1);
    if (!found) return null;
    const { run } = found;
    const session = new RunSession(
      run.id,
      {
        kind: run.kind as RunFacts["kind"],
        status: run.status as RunFacts["status"],
        archivedAt: run.archivedAt,
        metadata: run.metadata as RunFacts["metadata"],
        errors: run.errors as RunFacts["errors"],
        generation: run.generation,
      },
      run.snapshot as RunSnapshot,
      { agentId: run.agentId, guildId: found.guildId, organisationId: found.organisationId },
    );
    for (const row of await loadRows(db, runId)) session.push(storedRow(row));
    return session;
  }
}

/** A database row as the projection reads it. */
export function storedRow(row: {
  seq: number; generation: number | null; role: string; payload: unknown; metadata: unknown; tokenCount: number | null;
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

/** A committed wire row (as published) back into the in-memory form. */
export function fromWire(row: WireRow, tokenCount: number): StoredRow {
  return storedRow({ ...row, tokenCount });
}
