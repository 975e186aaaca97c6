/**
 * The only fetch the MCP client uses. A connection's URL is a tenant's choice, so it is
 * held to the rules of model base URLs (core/providers/egress.ts): every request URL and
 * every redirect target is checked, and redirects are followed here, one hop at a time,
 * so a public server cannot bounce the platform onto an internal address.
 */
import { checkModelUrl, type EgressAllowance } from "../providers/egress";

const MAX_REDIRECTS = 5;

/** A URL the platform will not call; `kind` says why (an address kind, scheme, credentials). */
export class EgressRefused extends Error {
  readonly code = "mcp.url_refused";
  constructor(
    readonly url: string,
    readonly kind: string,
    reason: string,
    readonly redirected: boolean,
  ) {
    super(`${redirected ? "A redirect to" : "The URL"} ${redactedUrl(url)} ${reason}`);
    this.name = "EgressRefused";
  }
}

/** A URL as it may be shown: no userinfo, query or fragment (they can carry keys). */
export function redactedUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/**
 * Why an MCP server URL is refused, or null. The same rules as a model base URL, with a
 * message of its own for userinfo (credentials belong in the connection's auth).
 *
 * @example mcpUrlIssue("http://10.0.0.5/mcp", new Set()) // "points at a private address (10.0.0.5), which this platform does not call"
 */
export function mcpUrlIssue(raw: string, allow: EgressAllowance): { kind: string; message: string } | null {
  const verdict = checkModelUrl(raw, allow);
  if (verdict.ok) return null;
  if (verdict.kind === "credentials") return { kind: "credentials", message: "must not carry credentials; give a token as the connection's auth" };
  return { kind: verdict.kind, message: verdict.message };
}

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that checks each URL it is about to call and follows redirects itself. A
 * redirect to another origin drops the Authorization header, as browsers do: the token
 * was given for the server the tenant named.
 */
export function egressCheckedFetch(allow: EgressAllowance, base: Fetch = (i, init) => fetch(i, init)): Fetch {
  return async (input, init) => {
    let url = String(input instanceof URL ? input.href : input);
    let method = (init?.method ?? "GET").toUpperCase();
    let body = init?.body;
    const headers = new Headers(init?.headers);
    for (let hop = 0; ; hop++) {
      const issue = mcpUrlIssue(url, allow);
      if (issue) throw new EgressRefused(url, issue.kind, issue.message, hop > 0);
      const response = await base(url, { ...init, method, body, headers, redirect: "manual" });
      const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
      if (location === null) return response;
      await response.body?.cancel().catch(() => {});
      if (hop === MAX_REDIRECTS) throw new EgressRefused(url, "redirects", `redirected more than ${MAX_REDIRECTS} times`, true);
      const next = new URL(location, url);
      if (next.origin !== new URL(url).origin) headers.delete("authorization");
      // 303, and 301/302 after a POST, turn into a GET without a body (as fetch does).
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
        headers.delete("content-type");
      }
      url = next.href;
    }
  };
}
