/**
 * `guilds-code diff` (REPO-022, OP-REPO-2): the run's start..end diff of one repository, cut at
 * a line boundary under the byte limit.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { REPOS_DIR } from "../../core/repos/types";
import { checkpointRef } from "./checkpoint";
import { git, gitMaybe } from "./git";

export type DiffResult = { diff: string; truncated: boolean };
export type DiffFailure = { error: "checkpoint.missing" | "repository.missing"; message: string };

/**
 * The longest prefix of `bytes` that ends with a newline and fits in `max` bytes (a whole
 * output that fits is kept as is). Cutting at a newline never splits a UTF-8 character.
 */
export function cutAtLine(bytes: Buffer, max: number): { text: Buffer; truncated: boolean } {
  if (bytes.length <= max) return { text: bytes, truncated: false };
  const end = bytes.lastIndexOf(0x0a, max - 1);
  return { text: bytes.subarray(0, end + 1), truncated: true };
}

export async function runDiff(runId: string, repo: string, maxBytes: number): Promise<DiffResult | DiffFailure> {
  const path = join(REPOS_DIR, repo);
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory() || (await gitMaybe(["rev-parse", "--show-toplevel"], { cwd: path })) !== path)
    return { error: "repository.missing", message: `${path} is not a git work tree` };
  const refs: string[] = [];
  for (const kind of ["start", "end"] as const) {
    const sha = await gitMaybe(["rev-parse", "-q", "--verify", `${checkpointRef(runId, kind)}^{commit}`], { cwd: path });
    if (!sha) return { error: "checkpoint.missing", message: `${repo} has no ${checkpointRef(runId, kind)}` };
    refs.push(sha);
  }
  // One byte past the limit tells "fits exactly" from "cut"; git is stopped once it is reached.
  const result = await git(["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--src-prefix=a/", "--dst-prefix=b/", refs[0]!, refs[1]!], {
    cwd: path,
    maxStdoutBytes: maxBytes,
  });
  if (result.code !== 0 && !result.overflowed) throw new Error(`git diff failed: ${result.stderr.trim()}`);
  const { text, truncated } = cutAtLine(result.stdout, maxBytes);
  return { diff: text.toString("utf8"), truncated };
}
