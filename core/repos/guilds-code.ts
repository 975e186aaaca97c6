/**
 * Talking to the image's guilds-code (containers/code): its command lines, quoted for the
 * guest's bash, and its answer, one JSON document on the last line of its output.
 */
import { GUILDS_CODE } from "./types";

/** A word bash reads literally. */
export const shellWord = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * @example guildsCodeCommand("clone", { url: "https://github.com/a/b.git", dir: "b" })
 * // "/usr/local/bin/guilds-code clone --url 'https://github.com/a/b.git' --dir 'b'"
 */
export function guildsCodeCommand(subcommand: string, flags: Record<string, string | number>): string {
  const words = Object.entries(flags).map(([name, value]) => `--${name} ${shellWord(String(value))}`);
  return [GUILDS_CODE, subcommand, ...words].join(" ");
}

/**
 * guilds-code's answer in the guest's output (stdout and stderr together): the last line
 * that parses as a JSON object or array, or null.
 */
export function lastJson(output: string): unknown {
  const lines = output.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith("{") && !line.startsWith("[")) continue;
    try {
      return JSON.parse(line) as unknown;
    } catch {
      // Not the answer: a line of stderr that happens to start with a bracket.
    }
  }
  return null;
}
