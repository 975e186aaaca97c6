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

/**
 * A repository's REST base: `<apiUrl>/repos/<owner>/<name>`, each part encoded; a name that is
 * not `owner/repo` is refused rather than sent.
 *
 * @example repositoryUrl("https://api.github.com", "acme/app") // "https://api.github.com/repos/acme/app"
 */
export function repositoryUrl(apiUrl: string, fullName: string): string {
  const [owner, name, ...rest] = fullName.split("/");
  if (!owner || !name || rest.length) throw new TypeError(`A repository is named owner/repo, not ${JSON.stringify(fullName)}`);
  return `${apiUrl.replace(/\/+$/, "")}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

/**
 * A branch or revision as a URL path: its slashes are part of the path, as GitHub takes them.
 *
 * @example refPath("factory/task/APP-7/a1") // "factory/task/APP-7/a1"
 */
export const refPath = (ref: string): string => ref.split("/").map(encodeURIComponent).join("/");
