/**
 * The exec stream's framing: one JSON object per line. A client reads lines as they come and
 * stops at the `exit` line.
 */

export type ExecLine =
  | { type: "start"; id: string; pid: number | null }
  | { type: "output"; stream: "stdout" | "stderr"; data: string }
  | {
      type: "exit";
      id: string;
      exit_code: number | null;
      signal: string | null;
      timed_out: boolean;
      killed: boolean;
      truncated: boolean;
      duration_ms: number;
      error?: string;
    };

/** One frame: JSON without raw newlines (JSON.stringify escapes them inside strings) plus "\n". */
export function frame(line: ExecLine): string {
  return `${JSON.stringify(line)}\n`;
}

/**
 * Splits arriving text into complete lines, keeping a partial last line for the next chunk.
 *
 * @example
 * const reader = new LineReader();
 * reader.push('{"a":1}\n{"b"'); // ['{"a":1}']
 * reader.push(":2}\n");          // ['{"b":2}']
 */
export class LineReader {
  private rest = "";

  push(text: string): string[] {
    const parts = (this.rest + text).split("\n");
    this.rest = parts.pop() ?? "";
    return parts.filter((line) => line.length > 0);
  }

  /** Whatever followed the last newline (empty for a well-formed stream). */
  get pending(): string {
    return this.rest;
  }
}
