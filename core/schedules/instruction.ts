import type { WakeWindow } from "./windows";

/**
 * What a schedule-triggered run receives and records about its routine (SCHED-014..018):
 * the "Schedule wake-up" user message and the instruction_hash in the run's metadata.
 */

/**
 * SHA-256 hex of the UTF-8 instruction exactly as stored (no trimming or normalising), so
 * a run that fired with an older instruction can be told apart (SCHED-018, SCHED-019).
 * WebCrypto: the same in workerd and Node.
 *
 * @example await instructionHash("Check the inbox.") // "3f1c…" (64 hex characters)
 */
export async function instructionHash(instruction: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(instruction));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface WakeUpInput {
  /** The schedule's id. */
  id: string;
  /** Exactly one of cron and window (SCHED-002). */
  cron?: string | null;
  window?: WakeWindow | null;
  instruction: string;
  /** The schedule's last_run_at when it fires; null on the first wake (SCHED-015). */
  previous_run_at: Date | string | null;
}

/** ISO-8601 UTC with milliseconds, whichever form the row gave; the agent passes it as `since` (SCHED-016). */
function isoOrNull(value: Date | string | null): string | null {
  if (value === null) return null;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`previous_run_at is not a date: ${String(value)}`);
  return date.toISOString();
}

/**
 * The user row of a schedule-triggered run (SCHED-014): `Schedule wake-up: ` then the
 * object pretty-printed as JSON with two-space indent, keys in the spec's order (id, cron
 * or window, instruction, previous_run_at). JSON keeps a multi-line markdown instruction
 * unambiguous, and the window's fields are copied in a fixed order so the text (and the
 * prompt hash) does not depend on how the row was read.
 *
 * @example
 * scheduleWakeUpMessage({ id: "s1", cron: "0 9 * * *", instruction: "Check the inbox.", previous_run_at: null })
 * // Schedule wake-up: {
 * //   "id": "s1",
 * //   "cron": "0 9 * * *",
 * //   "instruction": "Check the inbox.",
 * //   "previous_run_at": null
 * // }
 */
export function scheduleWakeUpMessage(input: WakeUpInput): string {
  const { cron, window } = input;
  if ((cron == null) === (window == null)) throw new Error("a schedule wake-up needs exactly one of cron and window");
  const trigger = cron != null ? { cron } : { window: { timezone: window!.timezone, start: window!.start, end: window!.end, max_wakes: window!.max_wakes } };
  const body = { id: input.id, ...trigger, instruction: input.instruction, previous_run_at: isoOrNull(input.previous_run_at) };
  return `Schedule wake-up: ${JSON.stringify(body, null, 2)}`;
}
