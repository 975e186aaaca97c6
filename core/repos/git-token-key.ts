import { toBase64 } from "../bytes/base64";

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

/**
 * The Authorization header git sends with a token as its credential: Basic, user
 * `x-access-token`, as GitHub takes installation tokens and the gateway takes a run's credential.
 *
 * @example tokenAuthorization("abc") === "Basic eC1hY2Nlc3MtdG9rZW46YWJj"
 */
export function tokenAuthorization(token: string): string {
  // As UTF-8, like Buffer's base64: btoa alone throws past Latin-1, and the tokens file is the box's to write.
  return `Basic ${toBase64(new TextEncoder().encode(`x-access-token:${token}`))}`;
}
