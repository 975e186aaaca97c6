/**
 * `guilds-code checkpoint` (REPO-014..018): a commit of each work tree under /home/agent/repos,
 * built through a temporary index so the real index, HEAD and branches stay as they were, and
 * recorded at refs/guild/runs/<run>/start (once) or .../end (every time). Nothing is pushed.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FILE_CHANGES_MAX, REPOS_DIR, type RepoChange } from "../../core/repos/types";
import { joinFileChanges } from "./file-changes";
import { git, gitMaybe, gitText } from "./git";
import { snapshotCommit } from "./snapshot";

export type CheckpointKind = "start" | "end";

/** A run id as a ref component: no slashes, dots or anything check-ref-format refuses. */
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Checkpoints are authored by the platform, whatever identity the agent configured. */
const CHECKPOINT_IDENTITY = {
  GIT_AUTHOR_NAME: "Guilds checkpoint",
  GIT_AUTHOR_EMAIL: "checkpoint@guilds.run",
  GIT_COMMITTER_NAME: "Guilds checkpoint",
  GIT_COMMITTER_EMAIL: "checkpoint@guilds.run",
};

export const checkpointRef = (runId: string, kind: CheckpointKind) => `refs/guild/runs/${runId}/${kind}`;

/** Parses `git diff --shortstat` (" 3 files changed, 10 insertions(+), 2 deletions(-)"). */
export function parseShortstat(text: string): { files_changed: number; insertions: number; deletions: number } {
  const count = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return { files_changed: count(/(\d+) files? changed/), insertions: count(/(\d+) insertions?\(\+\)/), deletions: count(/(\d+) deletions?\(-\)/) };
}

/** The top folders under REPOS_DIR that are the root of their own work tree, by name. */
export async function workTrees(): Promise<Array<{ name: string; path: string }>> {
  let names: string[];
  try {
    names = readdirSync(REPOS_DIR).sort();
  } catch {
    return [];
  }
  const found: Array<{ name: string; path: string }> = [];
  for (const name of names) {
    const path = join(REPOS_DIR, name);
    // Hidden folders are clones still in progress (see clone.ts).
    if (name.startsWith(".") || !statSync(path, { throwIfNoEntry: false })?.isDirectory()) continue;
    if ((await gitMaybe(["rev-parse", "--show-toplevel"], { cwd: path })) === path) found.push({ name, path });
  }
  return found;
}

/** Creates `ref` at `sha` unless it exists; answers the sha the ref holds afterwards. */
async function createOnce(path: string, ref: string, sha: string): Promise<string> {
  const created = await git(["update-ref", "--no-deref", ref, sha, ""], { cwd: path });
  if (created.code === 0) return sha;
  // Lost a race, or it was there all along: the first start wins (REPO-014).
  return gitText(["rev-parse", "--verify", `${ref}^{commit}`], { cwd: path });
}

export async function checkpointRepo(name: string, path: string, runId: string, kind: CheckpointKind): Promise<RepoChange> {
  const head = await gitMaybe(["rev-parse", "-q", "--verify", "HEAD^{commit}"], { cwd: path });
  const branch = (await gitMaybe(["symbolic-ref", "-q", "--short", "HEAD"], { cwd: path })) || null;
  const startRef = checkpointRef(runId, "start");
  const existingStart = await gitMaybe(["rev-parse", "-q", "--verify", `${startRef}^{commit}`], { cwd: path });
  const base = { name, branch, head_sha: head ?? null };
  if (kind === "start" && existingStart) return { ...base, start_sha: existingStart, end_sha: existingStart, files_changed: 0, insertions: 0, deletions: 0 };

  const commit = await snapshotCommit(path, { head, message: `Checkpoint (${kind}) of run ${runId}`, identity: CHECKPOINT_IDENTITY });
  // A repository cloned after the run's first generation gets its start now (OP-REPO-9).
  const start = existingStart ?? (await createOnce(path, startRef, commit));
  if (kind === "start") return { ...base, start_sha: start, end_sha: start, files_changed: 0, insertions: 0, deletions: 0 };
  await gitText(["update-ref", "--no-deref", checkpointRef(runId, "end"), commit], { cwd: path });
  const stat = await gitText(["diff", "--no-ext-diff", "--no-textconv", "--shortstat", start, commit], { cwd: path });
  // RUN-019: per file too, with renames found as the diff route shows them.
  const listed = (format: string) => gitRaw(["diff", "--no-ext-diff", "--no-textconv", "-M", format, "-z", start, commit], path);
  const { files, truncated } = joinFileChanges(await listed("--name-status"), await listed("--numstat"), FILE_CHANGES_MAX);
  return { ...base, start_sha: start, end_sha: commit, ...parseShortstat(stat), files, ...(truncated ? { files_truncated: true } : {}) };
}

/** git's stdout untrimmed (a -z listing ends in NUL and a path may end in a space). */
async function gitRaw(args: string[], cwd: string): Promise<string> {
  const result = await git(args, { cwd });
  if (result.code !== 0) throw new Error(result.stderr.trim() || `git ${args[0]} failed`);
  return result.stdout.toString("utf8");
}

/** Checkpoints every work tree; one that fails is reported on stderr and left out. */
export async function checkpointAll(runId: string, kind: CheckpointKind): Promise<RepoChange[]> {
  const changes: RepoChange[] = [];
  for (const { name, path } of await workTrees()) {
    try {
      changes.push(await checkpointRepo(name, path, runId, kind));
    } catch (error) {
      process.stderr.write(`guilds-code: checkpoint of ${name} failed: ${(error as Error).message}\n`);
    }
  }
  return changes;
}
