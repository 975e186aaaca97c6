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
