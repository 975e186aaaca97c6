/**
 * The key of a repository in git-tokens.json (OP-REPO-1): the clone URL without its scheme,
 * credentials and `.git`, i.e. `<host>/<path>`. git's credential helper protocol gives the same
 * two parts (host with its port, and the path when credential.useHttpPath is set), so the
 * platform writing the file and the helper reading it agree by construction.
 *
 * @example gitTokenKey("https://github.com/acme/app.git") === "github.com/acme/app"
 * @example gitTokenKey("http://172.17.0.1:8123/git/acme/app.git") === "172.17.0.1:8123/git/acme/app"
 */
export function gitTokenKey(cloneUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(cloneUrl);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return tokenKeyOf(url.host, decodeURIComponent(url.pathname));
}

/** The key from a credential request's `host` and `path` (with or without a leading slash or `.git`). */
export function tokenKeyOf(host: string, path: string): string {
  const trimmed = path
    .replace(/^\/+/, "")
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  return `${host.toLowerCase()}/${trimmed}`;
}
