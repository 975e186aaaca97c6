/**
 * `guilds-code clone` (REPO-006..008): clones a guild repository into /home/agent/repos/<dir>
 * when it is missing, re-points a present clone whose origin moved on the same host, and
 * classifies a failure for the platform's repository.clone error.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { gitTokenKey } from "../../core/repos/git-token-key";
import { REPOS_DIR } from "../../core/repos/types";
import { git, gitMaybe } from "./git";
import { tokenFor } from "./tokens";

export type CloneResult = { name: string; path: string; action: "cloned" | "present" | "repointed" };
export type CloneFailure = { error: "repository.clone"; reason: string; credentials: "anonymous" | "token_unused" | null };

/** A folder name git and the platform can both use: GitHub's repository name characters. */
export const DIR_NAME = /^(?!\.)[A-Za-z0-9._-]{1,100}$/;

/** The host (with port) of an http(s), ssh or scp-like git URL. */
export function urlHost(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.host) return parsed.host.toLowerCase();
  } catch {
    // scp-like below
  }
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)/.exec(url);
  return scp?.[1]?.toLowerCase();
}

/** Did git fail because it wanted credentials it did not get, or had them refused? */
export function wantedCredentials(stderr: string): boolean {
  return /could not read (Username|Password)|terminal prompts disabled|Authentication failed|HTTP Basic: Access denied|Invalid username or password/i.test(
    stderr,
  );
}

/** git's last `fatal:`/`error:` line (or its last line), short enough for an error message. */
export function failureReason(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.filter((l) => /^(fatal|error):/.test(l)).at(-1) ?? lines.at(-1) ?? "git clone failed";
  return line.length > 500 ? `${line.slice(0, 497)}...` : line;
}

export function classifyCloneFailure(url: string, stderr: string, timedOutAfterS?: number, lookup: (key: string) => unknown = tokenFor): CloneFailure {
  if (timedOutAfterS !== undefined) return { error: "repository.clone", reason: `timeout after ${timedOutAfterS} s`, credentials: null };
  if (!wantedCredentials(stderr)) return { error: "repository.clone", reason: failureReason(stderr), credentials: null };
  const key = gitTokenKey(url);
  const credentials = key && lookup(key) ? "token_unused" : "anonymous";
  return { error: "repository.clone", reason: failureReason(stderr), credentials };
}

export async function clone(url: string, dir: string, timeoutS: number): Promise<CloneResult | CloneFailure> {
  const path = join(REPOS_DIR, dir);
  mkdirSync(REPOS_DIR, { recursive: true });
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing && !existing.isDirectory()) return { error: "repository.clone", reason: `${path} exists and is not a directory`, credentials: null };
  if (existing && readdirSync(path).length > 0) {
    const top = await gitMaybe(["rev-parse", "--show-toplevel"], { cwd: path });
    if (top !== path) return { error: "repository.clone", reason: `${path} exists and is not a git work tree`, credentials: null };
    const origin = await gitMaybe(["config", "--get", "remote.origin.url"], { cwd: path });
    if (origin === undefined || origin === url || urlHost(origin) !== urlHost(url)) return { name: dir, path, action: "present" };
    const set = await git(["remote", "set-url", "origin", url], { cwd: path });
    if (set.code !== 0) return { error: "repository.clone", reason: failureReason(set.stderr), credentials: null };
    return { name: dir, path, action: "repointed" };
  }
  // Cloned beside its place and moved in whole: a clone cut off by the timeout leaves no
  // half repository that the next generation would take for a present one.
  const staging = join(REPOS_DIR, `.${dir}.cloning-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  const result = await git(["clone", "--no-progress", "--", url, staging], {
    env: { GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "", GCM_INTERACTIVE: "never" },
    timeoutMs: timeoutS * 1000,
  });
  if (result.code !== 0 || result.timedOut) {
    rmSync(staging, { recursive: true, force: true });
    return classifyCloneFailure(url, result.stderr, result.timedOut ? timeoutS : undefined);
  }
  // An empty folder in the way (git would have cloned into it) gives way to the clone.
  if (existing) rmSync(path, { recursive: true, force: true });
  renameSync(staging, path);
  return { name: dir, path, action: "cloned" };
}
