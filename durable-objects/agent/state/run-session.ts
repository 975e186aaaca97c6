import { eq } from "drizzle-orm";
import type { MonthSpend } from "../../../core/db/agent-state";
import type { Database } from "../../../core/db/client";
import { type OutagePolicy, riding, sqlState, UNIQUE_VIOLATION } from "../../../core/db/outage";
import { agents, runs } from "../../../core/db/schema";
import type { SecretRef } from "../../../core/db/secrets";
import { appendRow, loadRows, type NewRow, rowAt, storedRow, type WireRow } from "../../../core/db/transcript";
import { StubCounts } from "../../../core/projection/projection";
import { countToolSchemas } from "../../../core/projection/token-count";
import type { ChatPayload, StoredRow } from "../../../core/projection/types";
import type { RunFacts } from "../../../core/runs/rules";
import type { RunSnapshot } from "../../../core/runs/snapshot";

/** How a row reaches Postgres: a plain insert by default; the assistant row also bills usage. */
export type RowWrite = (db: Database, row: NewRow) => Promise<WireRow>;

/** A row as the loop drafts it; the session gives it its run and its seq. */
export type RowDraft = Omit<NewRow, "runId" | "seq">;

/**
 * What the agent object keeps in memory for a run it generates for: the rows with
 * their stored token counts (loaded once per wake, never recounted), the per-run stub
 * memo, and the tool schemas' count, so a step's planning cost does not grow with history.
 */
/** Where a session's committed rows go live: the object's SSE hub (sse-hub.ts), by run id. */
export interface RowSink {
  publishRow(runId: string, row: WireRow): void;
}

export class RunSession {
  readonly rows: StoredRow[] = [];
  readonly stubCounts = new StubCounts();
  private toolTokenCount: number | undefined;
  /** Tool results on the run so far (GEN-013 counts every generation). */
  toolResults = 0;
  /** About how much memory the rows hold (their JSON text), for the object's session budget. */
  bytes = 0;
  /**
   * Set when a write failed without a known outcome: memory may no longer match the
   * database, so the object drops this copy and loads the run again next time.
   */
  stale = false;
  /**
   * What was read with the write that started this generation (the opening, whose secrets
   * are the snapshot's, or the user row with the agent's current secrets): the
   * generation's start uses it instead of reading again. Taken once.
   */
  openedWith: { spend: MonthSpend; secrets?: SecretRef[] } | null = null;
  /** Where committed rows go live (the object's run streams); the session cache sets it when it keeps the session. */
  live: RowSink | null = null;

  constructor(
    readonly runId: string,
    public facts: RunFacts & { generation: number },
    readonly snapshot: RunSnapshot,
    readonly scope: { agentId: string; guildId: string; organisationId: string },
  ) {}

  /** The tool schemas' tokens, counted on first use: a session loaded only to read or archive never counts. */
  get toolTokens(): number {
    this.toolTokenCount ??= countToolSchemas(this.snapshot.tools);
    return this.toolTokenCount;
  }

  get nextSeq(): number {
    return (this.rows.at(-1)?.seq ?? -1) + 1;
  }

  /** Adds a committed row to memory (the database has it already). */
  push(row: StoredRow): void {
    this.rows.push(row);
    this.bytes += JSON.stringify(row.payload).length + JSON.stringify(row.metadata).length + 64;
    if (row.role === "tool" && row.metadata.source !== "interruption" && row.metadata.source !== "handoff") this.toolResults += 1;
  }

  /**
   * The one path every row of the run takes: written at the next seq (riding out a
   * database outage), then added to memory, then published. Nothing is published before
   * it committed. A retry that finds its seq taken by the same row takes it as committed:
   * the first try's answer was lost, not its write.
   *
   * @example await session.commit(db, { generation, role: "tool", payload, metadata, tokenCount });
   */
  async commit(db: Database, draft: RowDraft, write: RowWrite = appendRow, policy?: OutagePolicy): Promise<WireRow> {
    const row: NewRow = { ...draft, runId: this.runId, seq: this.nextSeq };
    let committed: WireRow;
    try {
      committed = await riding(async (attempt) => {
        try {
          return await write(db, row);
        } catch (error) {
          if (attempt > 0 && sqlState(error) === UNIQUE_VIOLATION) {
            const stored = await rowAt(db, row.runId, row.seq);
            if (stored && sameRow(stored, row)) return stored;
          }
          throw error;
        }
      }, policy);
    } catch (error) {
      this.stale = true;
      throw error;
    }
    this.push(storedRow({ ...committed, tokenCount: row.tokenCount }));
    this.live?.publishRow(this.runId, committed);
    return committed;
  }

  /** Tool calls of the last assistant row that have no result yet (CANCEL-005). */
  unresolvedCalls(): Array<{ id: string; name: string }> {
    const lastAssistant = this.rows.findLastIndex((r) => r.role === "assistant");
    if (lastAssistant === -1) return [];
    const payload = this.rows[lastAssistant]!.payload as Extract<ChatPayload, { role: "assistant" }>;
    const answered = new Set(this.rows.slice(lastAssistant + 1).flatMap((r) => (r.payload.role === "tool" ? [r.payload.tool_call_id] : [])));
    return (payload.tool_calls ?? []).filter((c) => !answered.has(c.id)).map((c) => ({ id: c.id, name: c.function.name }));
  }

  /** Loads a run with its agent scope and every row, in seq order. */
  static async load(db: Database, runId: string): Promise<RunSession | null> {
    const [found] = await db
      .select({ run: runs, guildId: agents.guildId, organisationId: agents.organisationId })
      .from(runs)
      .innerJoin(agents, eq(agents.id, runs.agentId))
      .where(eq(runs.id, runId))
      .limit(1);
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

/** Whether a stored row is the one we tried to write (jsonb reorders keys: compare canonically). */
function sameRow(stored: WireRow, row: NewRow): boolean {
  return stored.role === row.role && stored.generation === row.generation && canonical(stored.payload) === canonical(row.payload);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
