/**
 * A user's access to a repository as GitHub answers it: `GET /repos/{o}/{r}/collaborators/{user}/permission`
 * with an installation token that reaches the repository. Only a writer may start or
 * instruct a task (issue 33), so a stranger's comment on a public repository never reaches
 * an agent. Errors carry the status, never the token.
 *
 * @example await collaboratorPermission({ apiUrl, token, fullName: "acme/app", user: "carol" }) // "read"
 */
import { FORGE_ANSWER_CAP } from "../http/answer-caps";
import { readJsonWithin } from "../http/read-within";
import { githubInit, repositoryUrl } from "./request";

/** GitHub's `permission` of a collaborator: maintain reads as write, triage as read. */
export type RepositoryPermission = "admin" | "write" | "read" | "none";

/** Only a writer (admin, maintain, write) may start or instruct a task. */
export const mayInstruct = (permission: RepositoryPermission) => permission === "admin" || permission === "write";

/**
 * Why a sender's word is not acted on, as the deliveries list shows it.
 *
 * @example refusal("carol", "read") // "@carol has read access"
 */
export const refusal = (login: string, permission: RepositoryPermission) =>
  permission === "none" ? `@${login} has no access to the repository` : `@${login} has ${permission} access`;

export interface PermissionQuery {
  /** GitHub's REST base (https://api.github.com, GitHub Enterprise's, the local forge's). */
  apiUrl: string;
  /** An installation token that reaches the repository. */
  token: string;
  fullName: string;
  user: string;
  fetch?: typeof fetch;
}

/** GitHub did not say: it did not answer, or answered something else than a permission. */
export class PermissionUnknown extends Error {
  override readonly name = "PermissionUnknown";
}

export async function collaboratorPermission(query: PermissionQuery): Promise<RepositoryPermission> {
  const url = `${repositoryUrl(query.apiUrl, query.fullName)}/collaborators/${encodeURIComponent(query.user)}/permission`;
  const doFetch = query.fetch ?? ((input, init) => fetch(input, init));
  const what = `reading the access of @${query.user} to ${query.fullName}`;
  let response: Response;
  try {
    response = await doFetch(url, githubInit("GET", query.token, undefined));
  } catch (error) {
    throw new PermissionUnknown(`GitHub did not answer ${what}: ${(error as Error).name}`);
  }
  // No such user (GitHub answers 404 for a login it does not know): no access.
  if (response.status === 404) {
    await response.body?.cancel();
    return "none";
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new PermissionUnknown(`GitHub answered HTTP ${response.status} ${what}`);
  }
  const body = (await readJsonWithin(response, FORGE_ANSWER_CAP).catch(() => null)) as { permission?: unknown } | null;
  const permission = body?.permission;
  if (permission === "admin" || permission === "write" || permission === "read" || permission === "none") return permission;
  // Older answers and roles: maintain is a writer, triage a reader.
  if (permission === "maintain") return "write";
  if (permission === "triage") return "read";
  throw new PermissionUnknown(`GitHub's answer ${what} names no permission`);
}
