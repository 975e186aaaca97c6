/**
 * Whether one commit is an ancestor of another on the forge, from GitHub's compare API
 * (`GET /repos/{owner}/{repo}/compare/{base}...{head}`): `ahead` or `identical` means base is
 * head or below it. The git gateway asks it where a pushed history leaves the pack (TASK-017).
 * `compareDiffstat` sums the compare's files (additions and deletions of the head against its
 * merge base with the base), which best of N weighs attempts by. The installation token goes
 * in the Authorization header only, never in an error.
 */
import { FORGE_ANSWER_CAP } from "../http/answer-caps";
import { readJsonWithin } from "../http/read-within";
import { githubInit, refPath, repositoryUrl } from "./request";

export interface CompareOptions {
  /** The REST base, e.g. https://api.github.com. */
  apiUrl: string;
  /** An installation token reaching the repository. */
  token: string;
  /** `owner/repo`. */
  fullName: string;
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

const HEX_ID = /^[0-9a-f]{40}$/;

/**
 * True when `ancestor` is `commit` or one of its ancestors; false when it is not, or when the
 * forge does not have one of them (404). Throws when the forge gives no answer to rely on.
 */
export async function isAncestorOnForge(options: CompareOptions, ancestor: string, commit: string): Promise<boolean> {
  if (!HEX_ID.test(ancestor) || !HEX_ID.test(commit)) return false;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const response = await doFetch(
    `${repositoryUrl(options.apiUrl, options.fullName)}/compare/${ancestor}...${commit}`,
    githubInit("GET", options.token, undefined),
  );
  if (response.status === 404) {
    await response.body?.cancel();
    return false;
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`the forge answered HTTP ${response.status} to a compare`);
  }
  const status = ((await readJsonWithin(response, FORGE_ANSWER_CAP)) as { status?: unknown } | null)?.status;
  return status === "ahead" || status === "identical";
}

/**
 * The lines `head` adds and deletes against `base` (`GET /compare/{base}...{head}`, its files
 * summed); null when the forge does not have one of them (404). Throws when the forge gives
 * no answer to rely on. GitHub lists at most 300 files in a compare: past that the sum is of
 * those it lists (a diff that large is large whatever the exact count).
 *
 * @example await compareDiffstat(options, "main", "factory/task/APP-7/a2") // { additions: 12, deletions: 3 }
 */
export async function compareDiffstat(options: CompareOptions, base: string, head: string): Promise<{ additions: number; deletions: number } | null> {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const response = await doFetch(
    `${repositoryUrl(options.apiUrl, options.fullName)}/compare/${refPath(base)}...${refPath(head)}`,
    githubInit("GET", options.token, undefined),
  );
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`the forge answered HTTP ${response.status} to a compare`);
  }
  const files = ((await readJsonWithin(response, FORGE_ANSWER_CAP)) as { files?: unknown } | null)?.files;
  let additions = 0;
  let deletions = 0;
  for (const file of Array.isArray(files) ? (files as Array<{ additions?: unknown; deletions?: unknown }>) : []) {
    if (typeof file.additions === "number") additions += file.additions;
    if (typeof file.deletions === "number") deletions += file.deletions;
  }
  return { additions, deletions };
}
