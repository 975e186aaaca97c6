/**
 * The task volume's workspace is untrusted (TASK-013): it comes back from object storage as the
 * last box left it, and anything in its `.git` that git executes or follows (configuration,
 * hooks, attributes, links to other git directories) could run code in the platform's own git
 * steps. Before any git command runs there, the repository's configuration is written anew and
 * everything else of that kind is removed; git itself runs hardened for the platform's steps
 * (task-git.ts).
 */
import { lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "./git";
import { TASK_GIT_ENV } from "./task-git";

export interface WorkspaceConfig {
  remote: string;
  branch: string;
  name?: string;
  email?: string;
}

/** A git configuration value or subsection name in double quotes. */
const quoted = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** The whole `.git/config` of a task's workspace: origin, the task branch's upstream, the identity. */
export function workspaceConfig(config: WorkspaceConfig): string {
  const lines = [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tfilemode = true",
    "\tbare = false",
    "\tlogallrefupdates = true",
    '[remote "origin"]',
    `\turl = ${quoted(config.remote)}`,
    "\tfetch = +refs/heads/*:refs/remotes/origin/*",
    `[branch ${quoted(config.branch)}]`,
    "\tremote = origin",
    `\tmerge = ${quoted(`refs/heads/${config.branch}`)}`,
  ];
  if (config.name || config.email) {
    lines.push("[user]");
    if (config.name) lines.push(`\tname = ${quoted(config.name)}`);
    if (config.email) lines.push(`\temail = ${quoted(config.email)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `name=value` pairs of a configuration file, read as data (no includes, nothing run). */
async function configEntries(file: string): Promise<Array<[string, string]> | undefined> {
  const result = await git(["config", "--no-includes", "--file", file, "--list", "-z"], { cwd: tmpdir(), env: { ...TASK_GIT_ENV, GIT_CONFIG_NOSYSTEM: "1" } });
  if (result.code !== 0) return undefined;
  return result.stdout
    .toString("utf8")
    .split("\0")
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf("\n");
      return at < 0 ? [entry, ""] : [entry.slice(0, at), entry.slice(at + 1)];
    });
}

/** What the old configuration held that the new one does not: key names, each once. */
export function droppedKeys(old: Array<[string, string]>, fresh: Array<[string, string]>): string[] {
  const kept = new Set(fresh.map(([k, v]) => `${k}\n${v}`));
  return [...new Set(old.filter(([k, v]) => !kept.has(`${k}\n${v}`)).map(([k]) => k))].sort();
}

/** Entries of `.git` that git follows to other places or that hold an operation in progress. */
const REMOVED_FILES = [
  "info/attributes",
  "commondir",
  "config.worktree",
  "objects/info/alternates",
  "objects/info/http-alternates",
  "worktrees",
  "MERGE_HEAD",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
  "index.lock",
  "HEAD.lock",
  "config.lock",
  "packed-refs.lock",
  "shallow.lock",
];

/** The entry at `path`, not followed; undefined when missing or when a parent is not a directory. */
function kind(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The first folder between `root` and `rel` that is there but not a real directory (a link
 * that would lead a removal elsewhere), relative to `root`; undefined when there is none.
 */
function falseParent(root: string, rel: string): string | undefined {
  const parts = rel.split("/").slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const entry = kind(join(root, ...parts.slice(0, i)));
    if (!entry) return undefined;
    if (!entry.isDirectory()) return parts.slice(0, i).join("/");
  }
  return undefined;
}

export type Inspection =
  /** No workspace, or one git cannot use as it is: it is replaced by a fresh clone. */
  { usable: false; reason?: string } | { usable: true };

/** Whether `dir` may be kept: a real directory with a real `.git` directory without links at its top. */
export function inspectWorkspace(dir: string): Inspection {
  const top = kind(dir);
  if (!top) return { usable: false };
  if (!top.isDirectory()) return { usable: false, reason: "workspace (not a directory)" };
  const dotGit = kind(join(dir, ".git"));
  if (!dotGit) return { usable: false };
  if (dotGit.isSymbolicLink()) return { usable: false, reason: ".git (a symbolic link)" };
  if (dotGit.isFile()) return { usable: false, reason: ".git (a gitdir link)" };
  if (!dotGit.isDirectory()) return { usable: false, reason: ".git (not a directory)" };
  for (const entry of readdirSync(join(dir, ".git"), { withFileTypes: true })) {
    if (entry.isSymbolicLink()) return { usable: false, reason: `.git/${entry.name} (a symbolic link)` };
  }
  return { usable: true };
}

/** Lock files left in the refs by a git that was killed; they would stop every later update. */
function refLocks(gitDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const inner = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), inner);
      else if (entry.name.endsWith(".lock")) found.push(inner);
    }
  };
  if (kind(join(gitDir, "refs"))?.isDirectory()) walk(join(gitDir, "refs"), "refs");
  return found;
}

export interface Sanitized {
  /** What was removed, for the answer: configuration keys as `config: <key>`, files as `.git/<path>`. */
  removed: string[];
  /** Hooks removed, by name and content, so the caller can tell the template's own from others. */
  hooks: Map<string, Buffer>;
  /** origin's URL in the old configuration. */
  oldRemote: string | undefined;
}

/**
 * Rewrites `.git/config` of a usable workspace from scratch and removes hooks, attributes and
 * the files in REMOVED_FILES. Runs no git command inside the workspace.
 */
export async function sanitizeGitDir(dir: string, config: WorkspaceConfig): Promise<Sanitized> {
  const gitDir = join(dir, ".git");
  const removed: string[] = [];
  const configFile = join(gitDir, "config");
  let oldEntries: Array<[string, string]> = [];
  if (kind(configFile)) {
    const read = kind(configFile)?.isFile() ? await configEntries(configFile) : undefined;
    if (read) oldEntries = read;
    else removed.push("config (unreadable)");
    rmSync(configFile, { recursive: true, force: true });
  }
  const text = workspaceConfig(config);
  // "wx": never through a link someone slipped in between.
  writeFileSync(configFile, text, { flag: "wx", mode: 0o644 });
  const fresh = (await configEntries(configFile)) ?? [];
  removed.push(...droppedKeys(oldEntries, fresh).map((key) => `config: ${key}`));

  const hooks = new Map<string, Buffer>();
  const hooksDir = join(gitDir, "hooks");
  const hooksKind = kind(hooksDir);
  if (hooksKind?.isDirectory()) {
    for (const entry of readdirSync(hooksDir, { withFileTypes: true })) {
      const path = join(hooksDir, entry.name);
      hooks.set(entry.name, entry.isFile() ? readFileSync(path) : Buffer.alloc(0));
      rmSync(path, { recursive: true, force: true });
    }
  } else if (hooksKind) {
    removed.push(".git/hooks (not a directory)");
    rmSync(hooksDir, { recursive: true, force: true });
  }
  for (const rel of [...REMOVED_FILES, ...refLocks(gitDir)]) {
    // The link itself goes (rm does not follow it), and with it what it led to.
    const target = falseParent(gitDir, rel) ?? rel;
    if (!kind(join(gitDir, target))) continue;
    rmSync(join(gitDir, target), { recursive: true, force: true });
    if (!removed.includes(`.git/${target}`)) removed.push(`.git/${target}`);
  }
  const oldRemote = oldEntries.findLast(([key]) => key === "remote.origin.url")?.[1];
  return { removed, hooks, oldRemote };
}
