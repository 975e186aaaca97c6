/**
 * A commit of a whole work tree (tracked and untracked, not ignored) built through a
 * temporary index, so the real index, HEAD and branches stay as they were: the run's
 * checkpoints (checkpoint.ts) and the task's WIP snapshot (task.ts) are both this.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GitOptions, type GitResult, git } from "./git";

export interface SnapshotOptions {
  /** The parent commit, whose tree seeds the index; none for a repository without commits. */
  head: string | undefined;
  message: string;
  /** GIT_AUTHOR_* and GIT_COMMITTER_*: snapshots are the platform's, whatever the agent configured. */
  identity: Record<string, string>;
  /** Options put before every git command (`-c key=value`), e.g. the task's hardening. */
  gitArgs?: string[];
  /** Further environment of every git command. */
  env?: Record<string, string>;
}

export async function snapshotCommit(path: string, options: SnapshotOptions): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "guilds-snapshot-"));
  const run = (args: string[], extra: GitOptions = {}): Promise<GitResult> =>
    git([...(options.gitArgs ?? []), ...args], { cwd: path, ...extra, env: { ...options.env, GIT_INDEX_FILE: join(dir, "index"), ...options.identity } });
  const text = async (args: string[]): Promise<string> => {
    const result = await run(args);
    if (result.code !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
    return result.stdout.toString("utf8").trim();
  };
  try {
    // Seeded from HEAD, so tracked files that an ignore rule matches stay in the snapshot.
    await text(options.head ? ["read-tree", options.head] : ["read-tree", "--empty"]);
    // --ignore-errors: a file that cannot be read, or a nested repository without a commit,
    // is left out with a note instead of costing the whole snapshot.
    const added = await run(["-c", "advice.addEmbeddedRepo=false", "add", "--all", "--ignore-errors", "--", ":/"]);
    if (added.code !== 0) process.stderr.write(`guilds-code: ${path}: some files were left out of the snapshot:\n${added.stderr}`);
    const tree = await text(["write-tree"]);
    const parent = options.head ? ["-p", options.head] : [];
    return await text(["commit-tree", tree, ...parent, "-m", options.message]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
