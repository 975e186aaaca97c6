/**
 * Talking to the image's guilds-code (containers/code): its command lines, quoted for the
 * guest's bash, and its answer, one JSON document on the last line of its output.
 */
import { GUILDS_CODE, REPOS_DIR } from "./types";

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

/** A value git config keeps on one line: control characters (a newline would end it) become spaces. */
const oneLine = (value: string) => value.replace(/[\x00-\x1f\x7f]/g, " ");

/**
 * The agent's git identity (REPO-005), set by git itself: starting guilds-code (a Node
 * process) for two `git config` calls cost each coding generation about 150 ms.
 *
 * @example identityCommand("Ada", "ada@example.com")
 * // "git config --global user.name 'Ada' && git config --global user.email 'ada@example.com' && echo '{}'"
 */
export function identityCommand(name: string, email: string): string {
  return `git config --global user.name ${shellWord(oneLine(name))} && git config --global user.email ${shellWord(oneLine(email))} && echo '{}'`;
}

/**
 * The checkpoint of every work tree (REPO-014..018). With no folder under the repos folder
 * (hidden ones are clones in progress, which the checkpoint skips too) the answer is `[]`
 * without starting guilds-code: an agent with coding and no repository pays nothing for it.
 *
 * @example checkpointCommand("0b7e…", "start")
 */
export function checkpointCommand(runId: string, kind: "start" | "end"): string {
  return `if [ -z "$(ls ${REPOS_DIR} 2>/dev/null)" ]; then echo '[]'; else ${guildsCodeCommand("checkpoint", { run: runId, kind })}; fi`;
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
