/**
 * The byte budget shared by a command's stdout and stderr. Output past the budget is dropped
 * (the command keeps running: cutting a build short because it is chatty would change its
 * result), and the cut lands on a UTF-8 character boundary so the kept text stays valid.
 */

/** The text appended where output was cut. */
export function truncationMarker(limitBytes: number): string {
  return `\n[output truncated: limit of ${limitBytes} bytes reached; the command kept running]\n`;
}

export interface Take {
  /** The bytes to forward (possibly empty). */
  kept: Uint8Array;
  /** True only for the chunk at which the budget ran out, so the marker is written once. */
  cutHere: boolean;
}

/**
 * Counts bytes against a limit.
 *
 * @example
 * const budget = new OutputBudget(4);
 * budget.take(new TextEncoder().encode("abcdef")); // { kept: "abcd" bytes, cutHere: true }
 */
export class OutputBudget {
  private used = 0;
  private cut = false;

  constructor(readonly limitBytes: number) {}

  get truncated(): boolean {
    return this.cut;
  }

  take(chunk: Uint8Array): Take {
    if (this.cut) return { kept: chunk.subarray(0, 0), cutHere: false };
    const room = this.limitBytes - this.used;
    if (chunk.length <= room) {
      this.used += chunk.length;
      return { kept: chunk, cutHere: false };
    }
    const end = utf8Boundary(chunk, room);
    this.used += end;
    this.cut = true;
    return { kept: chunk.subarray(0, end), cutHere: true };
  }
}

/** The largest index <= `at` that does not split a UTF-8 sequence. */
export function utf8Boundary(bytes: Uint8Array, at: number): number {
  let end = Math.max(0, Math.min(at, bytes.length));
  if (end === bytes.length) return end;
  // Step back over continuation bytes (10xxxxxx) to the start of the character at `end`.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return end;
}
