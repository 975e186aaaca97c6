/**
 * A guild repository's derived words: the folder its clone lives in and the URL it is cloned
 * from. Both come from full_name and the platform's git base, never from the tenant.
 */

/** Where repositories are cloned from when no other git base is configured. */
export const GITHUB_GIT_URL = "https://github.com";

/**
 * The clone URL of `owner/repo` under the platform's git base.
 *
 * @example cloneUrl(undefined, "acme/widgets") // "https://github.com/acme/widgets.git"
 */
export function cloneUrl(gitBaseUrl: string | undefined, fullName: string): string {
  return `${(gitBaseUrl || GITHUB_GIT_URL).replace(/\/+$/, "")}/${fullName}.git`;
}

/**
 * The folder under /home/agent/repos: the repo part of full_name.
 *
 * @example repositoryFolder("acme/widgets") // "widgets"
 */
export function repositoryFolder(fullName: string): string {
  return fullName.slice(fullName.indexOf("/") + 1);
}
