/**
 * What best of N asks of the forge's branches, as GitHub answers it under `/api`:
 * - the files of a compare (`files[]` with `filename`, `additions`, `deletions`, `changes`,
 *   `status`), the head against its merge base with the base;
 * - `DELETE /repos/:o/:r/git/refs/heads/<branch>`: 204, or 422 "Reference does not exist";
 *   an installation token with contents write limited to the repository (else 404 for a
 *   private one, 403 without the permission).
 */
import { execFile } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { bearer, ForgeError } from "./http";
import { repoDir } from "./repos";
import type { ForgeState } from "./state";

const exec = promisify(execFile);
const REF = /^\/repos\/([A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+)\/git\/refs\/heads\/(.+)$/;
/** Branch names the forge accepts from a request: no `..`, no leading `-`. */
const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]+$/;

async function git(root: string, fullName: string, args: string[]): Promise<string> {
  const { stdout } = await exec("git", args, {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_DIR: repoDir(root, fullName) },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export interface CompareFile {
  filename: string;
  status: string;
  additions: number;
  deletions: number;
  changes: number;
}

/** The files `head` changes since its merge base with `base` (shas), as GitHub's compare lists them. */
export async function compareFiles(root: string, fullName: string, mergeBase: string | null, head: string): Promise<CompareFile[]> {
  if (!mergeBase) return [];
  const [numstat, status] = await Promise.all([
    git(root, fullName, ["diff", "--numstat", "--no-renames", "-z", mergeBase, head]),
    git(root, fullName, ["diff", "--name-status", "--no-renames", "-z", mergeBase, head]),
  ]);
  const kinds = new Map<string, string>();
  const parts = status.split("\0");
  for (let i = 0; i + 1 < parts.length; i += 2) kinds.set(parts[i + 1]!, parts[i]!);
  const words: Record<string, string> = { A: "added", D: "removed", M: "modified" };
  return numstat
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const [added, deleted, filename] = line.split("\t");
      // Binary files show "-": GitHub counts them as 0 lines.
      const additions = Number(added) || 0;
      const deletions = Number(deleted) || 0;
      return { filename: filename!, status: words[kinds.get(filename!) ?? "M"] ?? "modified", additions, deletions, changes: additions + deletions };
    });
}

/** Serves a branch's deletion (below `/api`); false when the path is not one. */
export async function serveBranchRefs(state: ForgeState, root: string, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const matched = REF.exec(path);
  if (!matched || req.method !== "DELETE") return false;
  const fullName = matched[1]!;
  const branch = decodeURIComponent(matched[2]!);
  const token = bearer(req);
  const repository = state.repositories.get(fullName);
  if (token === null || !state.liveToken(token)) throw new ForgeError(401, "Bad credentials");
  if (!repository || (!state.reaches(token, fullName) && repository.private)) throw new ForgeError(404, "Not Found");
  if (state.access(token, fullName, "contents") !== "write") throw new ForgeError(403, "Resource not accessible by integration");
  const sha = BRANCH.test(branch) ? (await git(root, fullName, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]).catch(() => "")).trim() : "";
  if (!sha) throw new ForgeError(422, "Reference does not exist");
  await git(root, fullName, ["update-ref", "-d", `refs/heads/${branch}`, sha]);
  res.writeHead(204).end();
  return true;
}
