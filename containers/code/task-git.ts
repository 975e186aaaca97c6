/**
 * Git as the platform runs it in a task's workspace (TASK-013): hardened whatever the
 * repository's or the home's configuration says. No hooks and no fsmonitor (both run
 * programs), no submodule recursion (a submodule's own configuration is not rewritten), no
 * global configuration (the home is the agent's), no protocols but http(s) and file, no
 * prompt. The system configuration stays: it is the image's own and carries the credential
 * helper (the run's gateway credential) and the commit trailer template.
 */
import { gitTokenKey, tokenAuthorization } from "../../core/repos/git-token-key";
import { failureReason } from "./clone";
import { type GitOptions, type GitResult, git } from "./git";
import { tokenFor } from "./tokens";

/** `-c` options before every git command the platform runs in a task's workspace. */
export const TASK_GIT_ARGS = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "submodule.recurse=false",
  "-c",
  "fetch.recurseSubmodules=false",
  "-c",
  "diff.ignoreSubmodules=all",
  "-c",
  "protocol.allow=never",
  "-c",
  "protocol.http.allow=always",
  "-c",
  "protocol.https.allow=always",
  "-c",
  "protocol.file.allow=always",
];

/** The environment of those commands (git.ts drops the caller's own GIT_* first). */
export const TASK_GIT_ENV: Record<string, string> = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GCM_INTERACTIVE: "never",
};

/** A git step of a task command that failed: exit 3 with `{"error":"task.git", step, reason}`. */
export class TaskGitError extends Error {
  constructor(
    readonly step: string,
    readonly reason: string,
  ) {
    super(`${step}: ${reason}`);
  }
}

export function taskGit(dir: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  return git([...TASK_GIT_ARGS, ...args], { cwd: dir, ...options, env: { ...TASK_GIT_ENV, ...options.env } });
}

/** Trimmed stdout, or a TaskGitError named after `step` with git's reason. */
export async function taskGitText(dir: string, args: string[], step: string, options: GitOptions = {}): Promise<string> {
  const result = await taskGit(dir, args, options);
  if (result.code !== 0) throw new TaskGitError(step, result.timedOut ? "timed out" : failureReason(result.stderr));
  return result.stdout.toString("utf8").trim();
}

/** Trimmed stdout, or undefined when git fails (a ref that is not there). */
export async function taskGitMaybe(dir: string, args: string[]): Promise<string | undefined> {
  const result = await taskGit(dir, args);
  return result.code === 0 ? result.stdout.toString("utf8").trim() : undefined;
}

/** The commit a ref names, or undefined. */
export const commitOf = (dir: string, ref: string) => taskGitMaybe(dir, ["rev-parse", "-q", "--verify", `${ref}^{commit}`]);

/** `git ls-remote` lines for exactly these refs (its patterns also match longer names' tails). */
export function parseLsRemote(text: string, refs: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [sha, ref] = line.split("\t");
    if (sha && ref && refs.includes(ref)) found.set(ref, sha);
  }
  return found;
}

/**
 * The environment that sends the run's token for `remote` with git's first request. Without it
 * each network command is refused once (401), starts the credential helper (a Node start) and
 * asks again: two of those were a fifth of a task's preparation. The token is the one the
 * helper would give (the tokens file), scoped by git to that remote's URL. Empty when the file
 * has none for it: git then asks the helper as before.
 *
 * @example credentialEnv("http://172.17.0.1:8123/git/acme/app.git") // { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.http://…/app.git.extraHeader", … }
 */
export function credentialEnv(remote: string, lookup = tokenFor): Record<string, string> {
  const key = gitTokenKey(remote);
  const entry = key ? lookup(key) : undefined;
  if (!entry) return {};
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: `http.${remote}.extraHeader`, GIT_CONFIG_VALUE_0: `Authorization: ${tokenAuthorization(entry.token)}` };
}

/** credentialEnv for the workspace's origin, whatever it now names (only the gateway's URL has a token). */
export async function originCredentialEnv(dir: string): Promise<Record<string, string>> {
  const origin = await taskGitMaybe(dir, ["config", "--get", "remote.origin.url"]);
  return origin ? credentialEnv(origin) : {};
}

/** What origin holds of these refs (full names), as one request. */
export async function remoteRefs(dir: string, refs: readonly string[], env: Record<string, string> = {}): Promise<Map<string, string>> {
  const text = await taskGitText(dir, ["ls-remote", "origin", ...refs], "ls-remote", { env });
  return parseLsRemote(text, refs);
}

export interface PushOutcome {
  ok: boolean;
  /** The reason of a rejected update (`[remote rejected] ... (<reason>)`), when git was refused. */
  refused?: string;
  output: string;
}

/**
 * Reads `git push --porcelain`: `!` lines are refused updates, as `<flag>\t<from>:<to>\t<summary> (<reason>)`.
 * @example refusalOf("To x\n!\trefs/heads/a:refs/heads/a\t[remote rejected] (force push not allowed)\nDone\n") // "force push not allowed"
 */
export function refusalOf(porcelain: string): string | undefined {
  for (const line of porcelain.split("\n")) {
    if (!line.startsWith("!\t")) continue;
    const summary = line.split("\t")[2] ?? "";
    const reason = /\((.*)\)\s*$/.exec(summary)?.[1];
    return reason || summary.trim() || "rejected";
  }
  return undefined;
}

const OUTPUT_MAX = 4_000;

/** Runs `git push --porcelain origin <args>`: a rejected update is an outcome, anything else a TaskGitError. */
export async function push(dir: string, args: string[], step: string, env: Record<string, string> = {}): Promise<PushOutcome> {
  const result = await taskGit(dir, ["push", "--porcelain", "--no-verify", "--no-recurse-submodules", "origin", ...args], { env });
  const stdout = result.stdout.toString("utf8");
  const output = `${stdout}${result.stderr}`.trim().slice(-OUTPUT_MAX);
  if (result.code === 0) return { ok: true, output };
  const refused = refusalOf(stdout);
  if (refused !== undefined) return { ok: false, refused, output };
  throw new TaskGitError(step, result.timedOut ? "timed out" : failureReason(result.stderr));
}

/**
 * Every filter driver the repository's configuration defines, emptied for one command (an
 * empty command is no filter): the agent may define one during its run, and the platform's
 * snapshot must not run it. Given as GIT_CONFIG_* variables, which take any driver name.
 */
export async function noFilters(dir: string): Promise<Record<string, string>> {
  const names = (await taskGitMaybe(dir, ["config", "--name-only", "--get-regexp", "^filter\\."])) ?? "";
  const drivers = new Set(names.split("\n").flatMap((name) => /^filter\.(.+)\.[^.]+$/.exec(name.trim())?.[1] ?? []));
  const env: Record<string, string> = {};
  let count = 0;
  for (const driver of drivers) {
    for (const [key, value] of [
      ["clean", ""],
      ["smudge", ""],
      ["process", ""],
      ["required", "false"],
    ]) {
      env[`GIT_CONFIG_KEY_${count}`] = `filter.${driver}.${key}`;
      env[`GIT_CONFIG_VALUE_${count}`] = value!;
      count++;
    }
  }
  return count ? { ...env, GIT_CONFIG_COUNT: String(count) } : {};
}
