import { countText, MESSAGE_OVERHEAD, PROMPT_OVERHEAD } from "./token-count";
import type { AttachmentRef, ChatPayload, StoredRow, TextCounter } from "./types";

/**
 * Tool-result stubbing, projection policy version 1 (PROJ-009). The stored rows never
 * change (PROJ-001); the projection is the request view: same rows, same order, with
 * large tool results outside the keep window (or shed under pressure) replaced by a stub.
 */

export const PROJECTION_POLICY_VERSION = 1;
/** Results under this many UTF-8 bytes are never stubbed (PROJ-007). */
export const STUB_FLOOR_BYTES = 2048;
/** Pressure stops once this many live results at or above the floor remain (PROJ-008). */
export const PRESSURE_MIN_LIVE = 4;
/** Default keep_tool_result_generations (PROJ-004/005). */
export const DEFAULT_KEEP = 1;
/** Studio and Builder: same projector, keep 1 and no size floor (PROJ-011). */
export const STUDIO_PROJECTION = { keep: 1, floor: 0 } as const;

const STUB_PREFIX = "[tool result stubbed] ";

/**
 * The stub that replaces a tool result (PROJ-002, OP-PROJ-1). A pure function of the
 * immutable row, so replay rebuilds it byte for byte; keys always in the same order.
 * @example stubFor(row) // '[tool result stubbed] {"tool_name":"file_read","source_seq":7,"path":"a.ts"} Call file_read again to see it.'
 */
export function stubFor(row: StoredRow): string {
  const { tool_name, path, range } = row.metadata;
  const ref: Record<string, unknown> = { tool_name: tool_name ?? null, source_seq: row.seq };
  if (path != null) ref.path = path;
  if (range != null) ref.range = range;
  const hint = tool_name ? `Call ${tool_name} again to see it.` : "Call the same tool again to see it.";
  return `${STUB_PREFIX}${JSON.stringify(ref)} ${hint}`;
}

/**
 * UTF-8 byte length without allocating (OP-PROJ-3).
 * @example utf8ByteLength("é") // 2
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Whether content reaches the byte floor. Each UTF-16 unit is 1 to 3 UTF-8 bytes, so
 * only strings whose length is within a factor 3 of the floor are measured: the check
 * stays O(1) for large results, which keeps a planning step flat as history grows.
 * @example atOrAboveFloor("x".repeat(2048), 2048) // true
 */
export function atOrAboveFloor(content: string, floor: number): boolean {
  if (content.length >= floor) return true;
  if (content.length * 3 < floor) return false;
  return utf8ByteLength(content) >= floor;
}

/**
 * Keep window (PROJ-004..006): keep generations stay live, the current one included,
 * so a row is outside when generation <= current - keep. A null generation (only the
 * opening system row has one) counts as older than every generation.
 * @example outsideKeepWindow({ generation: 2 } as StoredRow, 3, 1) // true
 */
export function outsideKeepWindow(row: StoredRow, currentGeneration: number, keep: number): boolean {
  return (row.generation ?? 0) <= currentGeneration - keep;
}

/**
 * Image attachments of a user row, or of a tool row (a browser screenshot): the hook the loop
 * uses to hydrate image_url parts after projection (ATT-004). Other roles carry none.
 * @example imageRefs(userRow).map((a) => a.id)
 */
export function imageRefs(row: StoredRow): AttachmentRef[] {
  if ((row.role !== "user" && row.role !== "tool") || !Array.isArray(row.metadata.attachments)) return [];
  return row.metadata.attachments.filter((a) => a.kind === "image");
}

/** A stub and its token count (message overhead included). */
export interface Stub {
  content: string;
  tokens: number;
}

/**
 * Per-run memo of stubs keyed by seq. Rows are immutable and seqs never change
 * (EXACT-001/002), so each stub is encoded once per run: planning then costs no
 * tokenizer work except for results stubbed for the first time.
 * @example const stubs = new StubCounts(); planProjection({ ...input, stubCounts: stubs });
 */
export class StubCounts {
  readonly #cache = new Map<number, Stub>();
  readonly #count: TextCounter;

  constructor(count: TextCounter = countText) {
    this.#count = count;
  }

  get(row: StoredRow): Stub {
    let stub = this.#cache.get(row.seq);
    if (!stub) {
      const content = stubFor(row);
      stub = { content, tokens: MESSAGE_OVERHEAD + this.#count(content) };
      this.#cache.set(row.seq, stub);
    }
    return stub;
  }

  get size(): number {
    return this.#cache.size;
  }
}

function checkSettings(rows: readonly StoredRow[], keep: number, floor: number): void {
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`keep must be an integer >= 1, got ${keep}`);
  if (!(floor >= 0)) throw new RangeError(`floor must be >= 0, got ${floor}`);
  // Projection keeps seq order (PROJ-012); a mis-ordered input is a caller bug, not something to sort.
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.seq <= rows[i - 1]!.seq) throw new RangeError(`rows out of seq order at seq ${rows[i]!.seq}`);
  }
}

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

/** Tool rows whose result the keep window stubs (outside the window, at or above the floor). */
function isKeepStubbed(row: StoredRow, payload: ChatPayload, currentGeneration: number, keep: number, floor: number): boolean {
  return payload.role === "tool" && atOrAboveFloor(payload.content, floor) && outsideKeepWindow(row, currentGeneration, keep);
}

/** Same rows, same order; only stubbed tool results get a new (small) message object. */
function project(rows: readonly StoredRow[], stubbed: readonly boolean[], stubText: (row: StoredRow) => string): ChatPayload[] {
  return rows.map((row, i) => {
    const payload = row.payload;
    if (!stubbed[i] || payload.role !== "tool") return payload;
    return { role: "tool", tool_call_id: payload.tool_call_id, content: stubText(row) };
  });
}

/**
 * Plans the request for the next model call: keep-window stubbing, then pressure
 * stubbing while over maxInputTokens (PROJ-008). Uses each row's stored tokenCount and
 * the memoised stub counts only, so no row is encoded again. Record pressureStubbed on
 * the assistant row: replay needs it (OP-PROJ-2). If fits is false, do not call the model (GEN-020).
 * @example
 * const plan = planProjection({ rows, currentGeneration: 3, keep: 1, floor: STUB_FLOOR_BYTES,
 *   maxInputTokens: 100_000, toolTokens, stubCounts });
 * if (!plan.fits) failWith("generation.max_input_tokens");
 */
export function planProjection(input: PlanInput): ProjectionPlan {
  const { rows, currentGeneration, keep, floor, maxInputTokens, toolTokens, stubCounts } = input;
  checkSettings(rows, keep, floor);

  const stubbed: boolean[] = new Array<boolean>(rows.length).fill(false);
  const keepStubbed: number[] = [];
  const live: number[] = []; // indexes of live results at or above the floor, oldest first
  let tokens = toolTokens + PROMPT_OVERHEAD;

  rows.forEach((row, i) => {
    const payload = row.payload;
    if (payload.role === "tool" && atOrAboveFloor(payload.content, floor)) {
      if (outsideKeepWindow(row, currentGeneration, keep)) {
        stubbed[i] = true;
        keepStubbed.push(row.seq);
        tokens += stubCounts.get(row).tokens;
        return;
      }
      live.push(i);
    }
    tokens += row.tokenCount;
  });

  // Pressure: shed the oldest live large results; "four remain" counts every live
  // generation, the current one included (OP-PROJ-4). Equal to the cap fits (GEN-021).
  const keepTokens = tokens;
  const pressureStubbed: number[] = [];
  for (let k = 0; tokens > maxInputTokens && live.length - k > PRESSURE_MIN_LIVE; k++) {
    const i = live[k]!;
    const row = rows[i]!;
    stubbed[i] = true;
    pressureStubbed.push(row.seq);
    tokens += stubCounts.get(row).tokens - row.tokenCount;
  }

  const messages = project(rows, stubbed, (row) => stubCounts.get(row).content);
  return { messages, keepStubbed, pressureStubbed, keepTokens, tokens, fits: tokens <= maxInputTokens };
}

/**
 * Rebuilds exactly what a model call received (EXACT-003, PROJ-010) from the stored
 * rows, the snapshot's keep and floor, and the recorded pressure list. No tokenizer:
 * the pressure decisions are replayed, not recomputed. Throws if the recorded list
 * names a row that pressure could not have stubbed (the record does not match the rows).
 * @example replayProjection({ rows: prefix, currentGeneration: row.generation, keep, floor, pressureStubbed })
 */
export function replayProjection(input: ReplayInput): ChatPayload[] {
  const { rows, currentGeneration, keep, floor, pressureStubbed } = input;
  checkSettings(rows, keep, floor);

  const pressure = new Set(pressureStubbed);
  const stubbed: boolean[] = rows.map((row) => {
    const keepStub = isKeepStubbed(row, row.payload, currentGeneration, keep, floor);
    if (!pressure.has(row.seq)) return keepStub;
    const payload = row.payload;
    if (keepStub || payload.role !== "tool" || !atOrAboveFloor(payload.content, floor)) {
      throw new Error(`recorded pressure stub seq ${row.seq} is not a live tool result at or above the floor`);
    }
    pressure.delete(row.seq);
    return true;
  });
  if (pressure.size > 0) throw new Error(`recorded pressure stub seqs not in rows: ${[...pressure].join(", ")}`);

  return project(rows, stubbed, stubFor);
}
