/**
 * `guilds-code task-push` and `task-finalize` (TASK-017, TASK-022): the task branch pushed
 * through the gateway after a turn, and at the end of a run the WIP snapshot of what is not
 * committed, pushed to its own ref. The working branch, HEAD and the real index stay as the
 * agent left them. A push the remote refuses is an answer, not a failure.
 */
import { snapshotCommit } from "./snapshot";
import { commitOf, noFilters, originCredentialEnv, push, remoteRefs, TASK_GIT_ARGS, TASK_GIT_ENV, TaskGitError, taskGit, taskGitText } from "./task-git";

export interface PushArgs {
  dir: string;
  branch: string;
  base: string;
}

export interface PushResult {
  pushed: boolean;
  /** The task branch's commit. */
  head: string;
  /** Commits of the task branch that the base branch (as last fetched) does not have. */
  ahead: number;
  refused?: string;
  output: string;
}

export interface FinalizeResult extends PushResult {
  /** The snapshot pushed to the WIP ref; null when the work tree is clean (the ref is deleted). */
  wip: { sha: string; files: number; refused?: string } | null;
  dirty: boolean;
}

/** WIP snapshots are the platform's commits, whatever identity the agent configured. */
const WIP_IDENTITY = {
  GIT_AUTHOR_NAME: "Guilds WIP",
  GIT_AUTHOR_EMAIL: "wip@guilds.run",
  GIT_COMMITTER_NAME: "Guilds WIP",
  GIT_COMMITTER_EMAIL: "wip@guilds.run",
};

/** git's empty tree, the "before" of a repository without commits. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

const heads = (name: string) => `refs/heads/${name}`;
const tracking = (name: string) => `refs/remotes/origin/${name}`;

async function aheadOfBase(dir: string, head: string, base: string, env: Record<string, string>): Promise<number> {
  if (!(await commitOf(dir, tracking(base)))) {
    await taskGitText(dir, ["fetch", "--no-tags", "--no-write-fetch-head", "--quiet", "origin", `+${heads(base)}:${tracking(base)}`], "fetch", {
      timeoutMs: 600_000,
      env,
    });
  }
  return Number(await taskGitText(dir, ["rev-list", "--count", `${tracking(base)}..${head}`], "ahead"));
}

export async function taskPush(args: PushArgs, env?: Record<string, string>): Promise<PushResult> {
  const head = await commitOf(args.dir, heads(args.branch));
  if (!head) throw new TaskGitError("push", `there is no branch ${args.branch}`);
  env ??= await originCredentialEnv(args.dir);
  const ahead = await aheadOfBase(args.dir, head, args.base, env);
  const remote = (await remoteRefs(args.dir, [heads(args.branch)], env)).get(heads(args.branch));
  if (remote === head) return { pushed: false, head, ahead, output: "" };
  // Leased on what the remote holds: rewritten history reaches the gateway, which allows it or
  // not by the task's setting, and a branch someone else moved meanwhile is never overwritten.
  const outcome = await push(args.dir, [`--force-with-lease=${heads(args.branch)}:${remote ?? ""}`, `${head}:${heads(args.branch)}`], "push", env);
  return { pushed: outcome.ok, head, ahead, ...(outcome.refused !== undefined && { refused: outcome.refused }), output: outcome.output };
}

export async function taskFinalize(args: PushArgs & { wip: string }): Promise<FinalizeResult> {
  const env = await originCredentialEnv(args.dir);
  const pushed = await taskPush(args, env);
  const head = await commitOf(args.dir, "HEAD");
  const snapshot = await snapshotCommit(args.dir, {
    head,
    message: `WIP snapshot of ${args.branch}`,
    identity: WIP_IDENTITY,
    gitArgs: TASK_GIT_ARGS,
    env: { ...TASK_GIT_ENV, ...(await noFilters(args.dir)) },
  });
  const tree = (rev: string | undefined) => (rev ? taskGitText(args.dir, ["rev-parse", `${rev}^{tree}`], "wip") : Promise.resolve(undefined));
  const dirty = (await tree(snapshot)) !== (await tree(head));
  if (!dirty) {
    const remote = await remoteRefs(args.dir, [heads(args.wip)], env);
    if (remote.has(heads(args.wip))) await push(args.dir, [`:${heads(args.wip)}`], "wip", env);
    await taskGit(args.dir, ["update-ref", "-d", tracking(args.wip)]);
    return { ...pushed, wip: null, dirty };
  }
  const changed = await taskGitText(args.dir, ["diff-tree", "-r", "--no-renames", "--name-only", "-z", head ?? EMPTY_TREE, snapshot], "wip");
  const files = changed.split("\0").filter(Boolean).length;
  const outcome = await push(args.dir, ["--force", `${snapshot}:${heads(args.wip)}`], "wip", env);
  return { ...pushed, wip: { sha: snapshot, files, ...(outcome.refused !== undefined && { refused: outcome.refused }) }, dirty };
}
