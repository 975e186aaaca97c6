/**
 * How every call to GitHub's REST and GraphQL APIs is sent (the App's and the forge plugin's):
 * its headers, JSON body and deadline. Pure: no fetch here.
 *
 * @example await fetch(`${apiUrl}/repos/acme/app/pulls`, githubInit("POST", token, { title, head, base }))
 */
/** A GitHub call that has not answered in this long is given up. */
export const GITHUB_TIMEOUT_MS = 15_000;

export function githubInit(method: string, bearer: string, body: unknown, timeoutMs = GITHUB_TIMEOUT_MS): RequestInit {
  return {
    method,
    headers: {
      accept: "application/vnd.github+json",
      authorization: `Bearer ${bearer}`,
      "user-agent": "guilds-platform",
      "x-github-api-version": "2022-11-28",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  };
}
