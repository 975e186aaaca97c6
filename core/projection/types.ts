import type { StubCounts } from "./projection";

/**
 * Shapes shared by the projection modules. The stored rows are the complete,
 * immutable history (EXACT-001/002); a projection is a per-request view of them.
 */

/** One function call requested by the assistant (Chat Completions shape). */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Chat Completions message payloads as stored in messages.payload (immutable). */
export type ChatPayload =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** An uploaded file referenced from a user row (ATT-001). Only kind "image" is hydrated. */
export interface AttachmentRef {
  id: string;
  filename: string;
  mime: string;
  kind: string;
}

/** Row metadata: never sent to the model, but path/range feed the stub (PROJ-002). */
export interface RowMetadata {
  tool_name?: string;
  path?: string;
  range?: string;
  attachments?: AttachmentRef[];
  [k: string]: unknown;
}

/** A stored row as the loop holds it in memory. */
export interface StoredRow {
  seq: number;
  /** null on the opening system row only. */
  generation: number | null;
  role: "system" | "user" | "assistant" | "tool";
  payload: ChatPayload;
  metadata: RowMetadata;
  /** Counted once at insert with countRowTokens; planning never re-encodes the row. */
  tokenCount: number;
}

/** Turns text into a token count; injectable so callers and tests can observe tokenizer use. */
export type TextCounter = (text: string) => number;

/** Input of planProjection (one call before each model request). */
export interface PlanInput {
  /** The run's rows in seq order (the prefix the next assistant row will answer). */
  rows: readonly StoredRow[];
  currentGeneration: number;
  /** keep_tool_result_generations from the run snapshot (PROJ-004). */
  keep: number;
  /** Byte floor below which a result is never stubbed: 2048, or 0 for Studio/Builder. */
  floor: number;
  maxInputTokens: number;
  /** countToolSchemas(snapshot tools), counted once per run by the caller. */
  toolTokens: number;
  /** Per-run stub memo (keep one per run, across steps) so planning never re-encodes. */
  stubCounts: StubCounts;
}

/** Result of planProjection: what to send, and what to record for replay (PROJ-010). */
export interface ProjectionPlan {
  messages: ChatPayload[];
  /** seqs stubbed because they are outside the keep window. */
  keepStubbed: number[];
  /** seqs stubbed under pressure (PROJ-008), oldest first; record on the assistant row. */
  pressureStubbed: number[];
  /** The count after keep-window stubbing, before pressure stubbing (the hand-off compares this, OP-CHAIN-2). */
  keepTokens: number;
  /** Prompt count: messages + tool schemas + reply priming. */
  tokens: number;
  /** tokens <= maxInputTokens (GEN-021: equal is allowed). */
  fits: boolean;
}

/** Input of replayProjection: the snapshot settings plus the recorded pressure list. */
export interface ReplayInput {
  rows: readonly StoredRow[];
  currentGeneration: number;
  keep: number;
  floor: number;
  pressureStubbed: readonly number[];
}
