/**
 * The forge's bare repositories on disk, `<root>/<owner>/<repo>.git`, made and read with
 * the git command line (the same git that serves them over HTTP).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** `owner/repo` of GitHub's alphabet: letters, digits, `-`, `_`, `.` (no `..`). */
const FULL_NAME = /^[A-Za-z0-9][A-Za-z0-9-]*\/(?!\.\.?$)[A-Za-z0-9._-]+$/;

/** Who makes a new repository's initial commit. */
const FORGE_AUTHOR = {
  GIT_AUTHOR_NAME: "Forge",
  GIT_AUTHOR_EMAIL: "forge@forge.invalid",
  GIT_COMMITTER_NAME: "Forge",
  GIT_COMMITTER_EMAIL: "forge@forge.invalid",
};

export interface Commit {
  sha: string;
  parents: string[];
  author: { name: string; email: string };
  /** The whole message, trailers included. */
  message: string;
}

export function isFullName(name: string): boolean {
  return FULL_NAME.test(name);
}

export function repoDir(root: string, fullName: string): string {
  return join(root, `${fullName}.git`);
}

/**
 * A bare repository whose default branch holds one commit of `files` (path → text;
 * a README when none are given).
 */
export async function createBareRepo(root: string, fullName: string, defaultBranch: string, files: Record<string, string>): Promise<void> {
  const dir = repoDir(root, fullName);
  mkdirSync(dirname(dir), { recursive: true });
  await git(["init", "--quiet", "--bare", `--initial-branch=${defaultBranch}`, dir]);
  const work = mkdtempSync(join(tmpdir(), "forge-initial-"));
  try {
    const entries = Object.entries(files);
    for (const [path, text] of entries.length ? entries : [["README.md", `# ${fullName}\n`] as const]) {
      const file = join(work, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    // The index lives outside the work tree, or the initial commit would hold it.
    const env = { GIT_DIR: dir, GIT_WORK_TREE: work, GIT_INDEX_FILE: join(dir, "forge-initial-index"), ...FORGE_AUTHOR };
    await git(["add", "--all", "--", "."], env);
    await git(["commit", "--quiet", "--no-verify", "-m", "Initial commit"], env);
    rmSync(env.GIT_INDEX_FILE, { force: true });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function repoExists(root: string, fullName: string): boolean {
  return existsSync(repoDir(root, fullName));
}

/** Every ref of the repository (branches, tags, anything pushed) → its sha. */
export async function listRefs(root: string, fullName: string): Promise<Array<{ ref: string; sha: string }>> {
  const out = await git(["for-each-ref", "--format=%(refname) %(objectname)"], { GIT_DIR: repoDir(root, fullName) });
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [ref, sha] = line.split(" ") as [string, string];
      return { ref, sha };
    });
}

/** The commits reachable from `ref`, newest first; [] when the ref does not exist. */
export async function log(root: string, fullName: string, ref: string, limit = 100): Promise<Commit[]> {
  const env = { GIT_DIR: repoDir(root, fullName) };
  if (!(await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], env).catch(() => ""))) return [];
  // NUL-separated records: a message may hold any other character.
  const out = await git(["log", `--max-count=${limit}`, "-z", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%B", ref, "--"], env);
  return out
    .split("\0")
    .filter(Boolean)
    .map((record) => {
      const [sha, parents, name, email, message] = record.split("\x1f") as [string, string, string, string, string];
      return { sha, parents: parents ? parents.split(" ") : [], author: { name, email }, message: message.replace(/\n+$/, "\n") };
    });
}

/** A file's text at `ref`, or null when the ref or the path does not exist. */
export async function readFileAt(root: string, fullName: string, ref: string, path: string): Promise<string | null> {
  return git(["show", `${ref}:${path}`], { GIT_DIR: repoDir(root, fullName) }).catch(() => null);
}

/** The sha a branch points at, or null when there is no such branch. */
export async function branchSha(root: string, fullName: string, branch: string): Promise<string | null> {
  const out = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`], { GIT_DIR: repoDir(root, fullName) }).catch(() => "");
  return out.trim() || null;
}

/** How many commits `head` has that `base` has not (GitHub's "commits ahead"). */
export async function commitsAhead(root: string, fullName: string, base: string, head: string): Promise<number> {
  return (await compareCommits(root, fullName, `refs/heads/${base}`, `refs/heads/${head}`))?.ahead ?? 0;
}

/** A commit-ish a compare may name: a sha or a branch, never an option. */
const REVISION = /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/;

/**
 * How `head` stands to `base` (GitHub's compare): commits ahead and behind and their merge
 * base; null when either is not a commit of the repository.
 */
export async function compareCommits(
  root: string,
  fullName: string,
  base: string,
  head: string,
): Promise<{ base: string; head: string; ahead: number; behind: number; mergeBase: string | null } | null> {
  if (!REVISION.test(base) || !REVISION.test(head)) return null;
  const env = { GIT_DIR: repoDir(root, fullName) };
  const resolve = (rev: string) =>
    git(["rev-parse", "--verify", "--quiet", `${rev}^{commit}`], env).then(
      (out) => out.trim(),
      () => "",
    );
  const [baseSha, headSha] = await Promise.all([resolve(base), resolve(head)]);
  if (!baseSha || !headSha) return null;
  const count = async (range: string) => Number((await git(["rev-list", "--count", range], env)).trim());
  const [ahead, behind] = await Promise.all([count(`${baseSha}..${headSha}`), count(`${headSha}..${baseSha}`)]);
  const mergeBase = (await git(["merge-base", baseSha, headSha], env).catch(() => "")).trim() || null;
  return { base: baseSha, head: headSha, ahead, behind, mergeBase };
}

/** The commit a sha or a branch names (GitHub's `:ref`), or null. */
export async function resolveCommit(root: string, fullName: string, ref: string): Promise<string | null> {
  if (!REVISION.test(ref)) return null;
  const env = { GIT_DIR: repoDir(root, fullName) };
  const candidates = /^[0-9a-f]{40}$/.test(ref) ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
  for (const candidate of candidates) {
    const out = await git(["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`], env).catch(() => "");
    if (out.trim()) return out.trim();
  }
  return null;
}

/** Deletes the branch; false when there was none. */
export async function deleteBranch(root: string, fullName: string, branch: string): Promise<boolean> {
  if ((await branchSha(root, fullName, branch)) === null) return false;
  await git(["update-ref", "-d", `refs/heads/${branch}`], { GIT_DIR: repoDir(root, fullName) });
  return true;
}

export interface ChangedFile {
  filename: string;
  status: "added" | "removed" | "modified" | "renamed";
  additions: number;
  deletions: number;
  changes: number;
}

/** The files `head` changes since `base` (both shas), with lines added and removed (0 and 0 for a binary). */
export async function diffFiles(root: string, fullName: string, base: string, head: string): Promise<ChangedFile[]> {
  const env = { GIT_DIR: repoDir(root, fullName) };
  const [numstat, names] = await Promise.all([
    git(["diff", "--no-renames", "--numstat", "-z", base, head], env),
    git(["diff", "--no-renames", "--name-status", "-z", base, head], env),
  ]);
  const statuses = new Map<string, string>();
  const parts = names.split("\0").filter(Boolean);
  for (let i = 0; i + 1 < parts.length; i += 2) statuses.set(parts[i + 1]!, parts[i]!);
  return numstat
    .split("\0")
    .filter(Boolean)
    .map((record) => {
      const [added, deleted, filename] = record.split("\t") as [string, string, string];
      const additions = Number(added) || 0;
      const deletions = Number(deleted) || 0;
      const code = statuses.get(filename);
      const status = code === "A" ? "added" : code === "D" ? "removed" : "modified";
      return { filename, status, additions, deletions, changes: additions + deletions };
    });
}

/**
 * Merges `head` into `base` with a merge commit, as GitHub's merge button does; the new sha,
 * or null when they conflict (or `base` moved meanwhile).
 */
export async function mergeBranches(root: string, fullName: string, base: string, head: string, message: string): Promise<string | null> {
  const env = { GIT_DIR: repoDir(root, fullName), ...FORGE_AUTHOR };
  const [baseSha, headSha] = await Promise.all([branchSha(root, fullName, base), branchSha(root, fullName, head)]);
  if (!baseSha || !headSha) return null;
  const tree = await git(["merge-tree", "--write-tree", baseSha, headSha], env).then(
    (out) => out.split("\n")[0]!.trim(),
    () => null,
  );
  if (!tree) return null;
  const merged = (await git(["commit-tree", tree, "-p", baseSha, "-p", headSha, "-m", message], env)).trim();
  const moved = await git(["update-ref", `refs/heads/${base}`, merged, baseSha], env).then(
    () => true,
    () => false,
  );
  return moved ? merged : null;
}

async function git(args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await exec("git", args, {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}
