/**
 * The tool output pipeline (GEN-025, EXACT-007, OP-GEN-3, OP-GEN-9): every tool result
 * passes it before it is stored, in this order:
 *
 * 1. redact the run redaction set (OP-ERR-5), first, so a cut can never leave half a secret;
 * 2. cap at 64 KiB of UTF-8 with a marker line saying how many bytes were cut;
 * 3. append the wrap-up line when N ≤ 8 (GEN-016) and always `remaining_tool_calls: N` as
 *    the very last line (GEN-015). They come after the cap so they are never cut off.
 */
import { storableText } from "../validation/storable";
import type { Redactor } from "./redaction";

/** Platform byte cap of a tool result body, before the wrap-up line and trailer. */
export const TOOL_OUTPUT_MAX_BYTES = 64 * 1024;
/** GEN-016: the wrap-up line shown above the trailer when few calls are left. */
export const WRAP_UP_LINE = "write durable findings and finish with text; a batch costs one call each";
/** GEN-016: the wrap-up line appears when N is at most this. */
export const WRAP_UP_THRESHOLD = 8;
/** Cancellation/restart result for every unresolved tool call (Run chains ¶cancellation). */
export const INTERRUPTED_RESULT = "ERROR: execution interrupted";
/** Room kept under the cap for the marker line, so body plus marker stays within the cap. */
const MARKER_RESERVE = 96;

export interface ToolOutputInput {
  /** The tool's raw result text. */
  text: string;
  /** The run redaction set (ERR-011). */
  redactor: Redactor;
  /** Budget left after this result (GEN-015); clamped at 0 (OP-GEN-4). */
  remaining: number;
  /** Byte cap override, for tests; defaults to TOOL_OUTPUT_MAX_BYTES. */
  maxBytes?: number;
}

/**
 * The stored content of one tool result: redacted, capped, then wrap-up line and trailer.
 * The body is separated from the trailer lines by one newline (none is added when it
 * already ends with one); an empty body gives just the trailer lines.
 *
 * @example
 * toolOutput({ text: "ok", redactor: Redactor.none, remaining: 12 })
 * // "ok\nremaining_tool_calls: 12"
 * toolOutput({ text: "ok", redactor: Redactor.none, remaining: 3 })
 * // "ok\nwrite durable findings and finish with text; a batch costs one call each\nremaining_tool_calls: 3"
 */
export function toolOutput(input: ToolOutputInput): string {
  const body = capUtf8(input.redactor.redact(storableText(input.text)), input.maxBytes ?? TOOL_OUTPUT_MAX_BYTES).text;
  return appendTrailer(body, input.remaining);
}

/**
 * Appends the budget lines to an already filtered body.
 *
 * @example appendTrailer("done\n", -2) // "done\nwrite durable findings …\nremaining_tool_calls: 0"
 */
export function appendTrailer(body: string, remaining: number): string {
  const n = clampRemaining(remaining);
  const lines = n <= WRAP_UP_THRESHOLD ? `${WRAP_UP_LINE}\n${trailerLine(n)}` : trailerLine(n);
  if (body.length === 0) return lines;
  return body.endsWith("\n") ? body + lines : `${body}\n${lines}`;
}

/** `remaining_tool_calls: N`, with N clamped at 0. */
export function trailerLine(remaining: number): string {
  return `remaining_tool_calls: ${clampRemaining(remaining)}`;
}

/**
 * The budget left after a result (GEN-013: every counted result on the run, all
 * generations), never below 0 (OP-GEN-4: a batch may overrun; it still finishes).
 *
 * @example remainingAfter(50, 1) // 49
 */
export function remainingAfter(maxToolCalls: number, countedResults: number): number {
  return clampRemaining(maxToolCalls - countedResults);
}

/**
 * The result stored for a tool call left unresolved by cancellation or a restart.
 * Decision (OP-GEN-7): interruption results do not count toward max_tool_calls, so they
 * carry no wrap-up line or trailer; no tool ran, and no budget was spent.
 */
export function interruptedResult(): string {
  return INTERRUPTED_RESULT;
}

/**
 * Cuts text to at most `maxBytes` of UTF-8 on a character boundary. When it cuts, a marker
 * line `[output truncated: X of Y bytes cut]` ends the text, and text plus marker still
 * fit in `maxBytes` (the marker's room is reserved when the cap allows it).
 *
 * @example capUtf8("a".repeat(70_000), 65_536).cutBytes // 4_560 (96 bytes are kept for the marker)
 */
export function capUtf8(text: string, maxBytes: number): { text: string; cutBytes: number } {
  // Each UTF-16 unit encodes to at most 3 bytes, so short text needs no encoding.
  if (text.length * 3 <= maxBytes) return { text, cutBytes: 0 };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, cutBytes: 0 };
  const budget = maxBytes > MARKER_RESERVE * 2 ? maxBytes - MARKER_RESERVE : maxBytes;
  let end = budget;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const kept = new TextDecoder().decode(bytes.subarray(0, end));
  const cutBytes = bytes.length - end;
  const sep = kept.length === 0 || kept.endsWith("\n") ? "" : "\n";
  return { text: `${kept}${sep}[output truncated: ${cutBytes} of ${bytes.length} bytes cut]`, cutBytes };
}

function clampRemaining(remaining: number): number {
  return Number.isFinite(remaining) ? Math.max(0, Math.floor(remaining)) : 0;
}
