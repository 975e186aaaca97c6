import { and, asc, eq, gt, lt } from "drizzle-orm";
import { replayProjection, STUB_FLOOR_BYTES } from "../projection/projection";
import { promptHash } from "../projection/prompt-hash";
import type { ChatPayload, StoredRow } from "../projection/types";
import type { RunSnapshot } from "../runs/snapshot";
import type { Database } from "./client";
import { messages } from "./schema";
import { storedRow } from "./transcript";

/** The exact prompt an assistant row was generated from, rebuilt from the stored rows before it. */
export interface ReplayedPrompt {
  /** The assistant row itself. */
  target: typeof messages.$inferSelect;
  /** The projection sent, before image hydration. */
  messages: ChatPayload[];
  /** The rows before the target, for hydrating its attachments. */
  rows: StoredRow[];
  hash: string;
  recordedHash: string | null;
}

/**
 * Rebuilds the prompt of the assistant row at `seq` (PROJ-010, EXACT-003): the rows before it
 * projected as its generation projected them, hashed as the row's hash was. Null when the
 * run has no assistant row at `seq`.
 *
 * @example const replay = await replayPrompt(db, run.id, 4, run.snapshot); // replay?.hash === replay?.recordedHash
 */
export async function replayPrompt(db: Database, runId: string, seq: number, snapshot: RunSnapshot): Promise<ReplayedPrompt | null> {
  const [target] = await db
    .select()
    .from(messages)
    .where(and(eq(messages.runId, runId), eq(messages.seq, seq)))
    .limit(1);
  if (target?.role !== "assistant") return null;
  const projection = (target.metadata as { projection?: { pressure_stubbed?: number[]; hash?: string } }).projection ?? {};
  const rows = await rowsBefore(db, runId, seq);
  const replayed = replayProjection({
    rows,
    currentGeneration: target.generation ?? 0,
    keep: snapshot.model.keep_tool_result_generations,
    floor: STUB_FLOOR_BYTES,
    pressureStubbed: projection.pressure_stubbed ?? [],
  });
  const hash = await promptHash(replayed, snapshot.tools, snapshot.model.model);
  return { target, messages: replayed, rows, hash, recordedHash: projection.hash ?? null };
}

/** Rows read per query when the prompt replay loads a transcript. */
const REPLAY_PAGE_ROWS = 500;

/** The run's rows before `seq`, in seq order, read a page at a time (never the whole transcript in one read). */
async function rowsBefore(db: Database, runId: string, seq: number): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  for (let after = -1; ; ) {
    const page = await db
      .select()
      .from(messages)
      .where(and(eq(messages.runId, runId), gt(messages.seq, after), lt(messages.seq, seq)))
      .orderBy(asc(messages.seq))
      .limit(REPLAY_PAGE_ROWS);
    for (const row of page) rows.push(storedRow(row));
    if (page.length < REPLAY_PAGE_ROWS) return rows;
    after = page[page.length - 1]!.seq;
  }
}
