/**
 * `guilds-code task-prepare` (TASK-013, TASK-035, TASK-036): the task's workspace on its volume
 * made ready for a run. The cached checkout is sanitized (workspace.ts) before git runs in it,
 * replaced by a fresh clone when it cannot be used, and brought to the task branch as the
 * remote has it (or as it is locally, when that only adds commits a push has not delivered
 * yet); the WIP snapshot of the last run goes on top as uncommitted changes. Ignored files of
 * the cache (dependencies, build output) stay: that is what the volume is for.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { commitOf, credentialEnv, remoteRefs, TaskGitError, taskGit, taskGitMaybe, taskGitText } from "./task-git";
import { inspectWorkspace, sanitizeGitDir, type WorkspaceConfig } from "./workspace";

export interface PrepareArgs extends WorkspaceConfig {
  dir: string;
  base: string;
  wip: string;
}

export interface PrepareResult {
  head: string;
  /** The remote has no task branch yet: it starts from the base (or from local commits on it). */
  created: boolean;
  wip_applied: boolean;
  /** Paths the WIP snapshot and the branch both changed, left with conflict markers. */
  wip_conflicts: string[];
  /** The workspace was cloned anew (missing, unusable, or another repository's). */
  cloned: boolean;
  /**
   * The workspace was another task's of the same repository (a repository seed, restored
   * where the task had no volume yet): its objects were kept and the task's refs fetched
   * into it, and that task's branches removed.
   */
  seeded: boolean;
  sanitized: string[];
  /** Where the preparation's time went, in ms: what an operator reads when a run starts slowly. */
  timings: PrepareTimings;
}

export interface PrepareTimings {
  /** From the process's start to the preparation's (the runtime and guilds-code loading). */
  start_ms: number;
  /** Sanitizing the cached checkout, or making a fresh repository. */
  workspace_ms: number;
  /** Asking the remote which refs it has (`ls-remote`, through the gateway). */
  refs_ms: number;
  fetch_ms: number;
  /** The branch checked out, and the WIP snapshot applied. */
  checkout_ms: number;
}

const heads = (name: string) => `refs/heads/${name}`;
const tracking = (name: string) => `refs/remotes/origin/${name}`;

/**
 * A remote with its task left out: the gateway's remotes differ by task alone
 * (`…/tasks/<task id>/<owner>/<repo>.git`), so two remotes of one repository are equal here.
 * @example remoteRepository("http://gw/tasks/t1/acme/app.git") // "http://gw/tasks/-/acme/app.git"
 */
export const remoteRepository = (remote: string) => remote.replace(/\/tasks\/[^/]+\//, "/tasks/-/");

/** Hooks removed that `git init` did not put back as they were: the ones the image did not install. */
function foreignHooks(dir: string, removed: Map<string, Buffer>): string[] {
  const foreign: string[] = [];
  for (const [name, content] of removed) {
    const path = join(dir, ".git", "hooks", name);
    const again = existsSync(path) ? readFileSync(path) : undefined;
    if (!again?.equals(content)) foreign.push(`.git/hooks/${name}`);
  }
  return foreign.sort();
}

/** A new repository in a staging folder beside `dir`, moved into its place. */
async function freshRepository(args: PrepareArgs): Promise<void> {
  const staging = join(dirname(args.dir), `.${basename(args.dir)}.preparing-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    // `git init` takes the image's template (the commit trailer hook); the config is ours.
    await taskGitText(staging, ["init", "-q"], "init");
    await sanitizeGitDir(staging, args);
    await taskGitText(staging, ["init", "-q"], "init");
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  rmSync(args.dir, { recursive: true, force: true });
  renameSync(staging, args.dir);
}

/** Fetches base, task branch and WIP ref; forgets the tracking refs of those the remote no longer has. */
async function fetchTaskRefs(args: PrepareArgs): Promise<{ present: { task: boolean; wip: boolean }; refsMs: number }> {
  const names = [args.base, args.branch, args.wip];
  const env = credentialEnv(args.remote);
  const asked = performance.now();
  const present = await remoteRefs(args.dir, names.map(heads), env);
  const refsMs = performance.now() - asked;
  if (!present.has(heads(args.base))) throw new TaskGitError("fetch", `the remote has no base branch ${args.base}`);
  const specs = names.filter((n) => present.has(heads(n))).map((n) => `+${heads(n)}:${tracking(n)}`);
  await taskGitText(args.dir, ["fetch", "--no-tags", "--no-write-fetch-head", "--quiet", "origin", ...specs], "fetch", { timeoutMs: 600_000, env });
  for (const name of names) if (!present.has(heads(name))) await taskGit(args.dir, ["update-ref", "-d", tracking(name)]);
  return { present: { task: present.has(heads(args.branch)), wip: present.has(heads(args.wip)) }, refsMs };
}

/**
 * The seed's task's own refs go (its branch, its tracking refs): this task's workspace shows
 * its own branch alone. The fetch is done, so they have served as what git already has.
 */
async function dropForeignRefs(args: PrepareArgs): Promise<void> {
  const kept = new Set([heads(args.branch), ...[args.base, args.branch, args.wip].map(tracking)]);
  const refs = await taskGitText(args.dir, ["for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes"], "fetch");
  for (const ref of refs.split("\n").filter(Boolean)) if (!kept.has(ref)) await taskGitText(args.dir, ["update-ref", "-d", ref], "fetch");
}

const isAncestor = async (dir: string, older: string, newer: string) => (await taskGit(dir, ["merge-base", "--is-ancestor", older, newer])).code === 0;

/** Puts HEAD on the branch at `target` with a work tree of exactly it, ignored files kept. */
async function checkOut(dir: string, branch: string, target: string): Promise<void> {
  await taskGitText(dir, ["update-ref", "--no-deref", heads(branch), target], "checkout");
  await taskGitText(dir, ["symbolic-ref", "HEAD", heads(branch)], "checkout");
  const reset = await taskGit(dir, ["reset", "-q", "--hard", target]);
  if (reset.code !== 0) {
    // A broken index (it is part of the untrusted volume): start from none.
    rmSync(join(dir, ".git", "index"), { force: true });
    await taskGitText(dir, ["reset", "-q", "--hard", target], "checkout");
  }
  await taskGitText(dir, ["clean", "-f", "-d", "-q"], "checkout");
}

/**
 * The WIP snapshot's tree over the work tree, with the index left at HEAD: its changes come
 * back unstaged and its new files untracked. When HEAD is not the snapshot's parent (the
 * branch moved since), its changes are merged in; a conflict leaves git's markers in the file.
 */
async function applyWip(dir: string, wip: string): Promise<{ applied: boolean; conflicts: string[] }> {
  const head = await taskGitText(dir, ["rev-parse", "HEAD"], "wip");
  const parent = await commitOf(dir, `${wip}^`);
  let tree: string;
  let conflicts: string[] = [];
  if (parent === head) tree = await taskGitText(dir, ["rev-parse", `${wip}^{tree}`], "wip");
  else {
    const merged = await taskGit(dir, ["merge-tree", "--write-tree", "--name-only", "--no-messages", head, wip]);
    if (merged.code !== 0 && merged.code !== 1) {
      process.stderr.write(`guilds-code: the WIP snapshot was not applied: ${merged.stderr.trim()}\n`);
      return { applied: false, conflicts };
    }
    const [first, ...rest] = merged.stdout.toString("utf8").split("\n");
    tree = first!.trim();
    conflicts = [...new Set(rest.map((l) => l.trim()).filter(Boolean))];
  }
  await taskGitText(dir, ["read-tree", "--reset", "-u", tree], "wip");
  await taskGitText(dir, ["read-tree", "HEAD"], "wip");
  await taskGit(dir, ["update-index", "-q", "--refresh"]);
  return { applied: true, conflicts };
}

export async function taskPrepare(args: PrepareArgs): Promise<PrepareResult> {
  const began = performance.now();
  mkdirSync(dirname(args.dir), { recursive: true });
  const sanitized: string[] = [];
  const inspection = inspectWorkspace(args.dir);
  let cloned = !inspection.usable;
  let seeded = false;
  if (!inspection.usable && inspection.reason) sanitized.push(inspection.reason);
  if (inspection.usable) {
    const result = await sanitizeGitDir(args.dir, args);
    sanitized.push(...result.removed);
    // Back from the image's template (the trailer hook), then anything else counts as removed.
    await taskGitText(args.dir, ["init", "-q"], "init");
    sanitized.push(...foreignHooks(args.dir, result.hooks));
    const top = await taskGitMaybe(args.dir, ["rev-parse", "--show-toplevel"]);
    const sameRepository = result.oldRemote !== undefined && remoteRepository(result.oldRemote) === remoteRepository(args.remote);
    if (!sameRepository || top === undefined || (await taskGitMaybe(args.dir, ["rev-parse", "--is-bare-repository"])) !== "false") cloned = true;
    seeded = !cloned && result.oldRemote !== args.remote;
  }
  if (cloned) await freshRepository(args);
  const workspaceAt = performance.now();

  const { present, refsMs } = await fetchTaskRefs(args);
  if (seeded) await dropForeignRefs(args);
  const fetchedAt = performance.now();
  const anchor = (await commitOf(args.dir, tracking(present.task ? args.branch : args.base)))!;
  // Local commits on top of the remote's branch are kept: a push that failed left them here.
  const local = await commitOf(args.dir, heads(args.branch));
  const target = local && (await isAncestor(args.dir, anchor, local)) ? local : anchor;
  await checkOut(args.dir, args.branch, target);
  const wip = present.wip ? await applyWip(args.dir, tracking(args.wip)) : { applied: false, conflicts: [] };
  const head = await taskGitText(args.dir, ["rev-parse", "HEAD"], "checkout");
  const timings = {
    start_ms: Math.round(began),
    workspace_ms: Math.round(workspaceAt - began),
    refs_ms: Math.round(refsMs),
    fetch_ms: Math.round(fetchedAt - workspaceAt - refsMs),
    checkout_ms: Math.round(performance.now() - fetchedAt),
  };
  return { head, created: !present.task, wip_applied: wip.applied, wip_conflicts: wip.conflicts, cloned, seeded, sanitized, timings };
}
