/**
 * The OAuth-protected variant of the local MCP server, mounted on it (server.ts `mounts`): a
 * small OAuth 2.1 authorization server on loopback (RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server/oauth`, dynamic registration, an authorize page
 * with an Approve button or auto-approval, a token endpoint with rotating refresh tokens) in
 * front of the MCP path `/oauth/mcp`, which answers 401 with its resource metadata (RFC 9728)
 * until a valid access token comes, then serves the same tools as `/mcp`.
 *
 * Mounted a second time under `/oauth-registered` without dynamic registration: there a client
 * exists only when a test (an operator's stand-in) creates it with `POST
 * /oauth-registered/__clients {client_id, client_secret?, redirect_uris}`, and the token endpoint
 * checks its secret (HTTP Basic or in the form).
 *
 * Test hooks (loopback only, as the whole server is): `POST /oauth/__settings`
 * `{access_token_ttl_s?, auto_approve?}` changes the access tokens' life (short, so refresh
 * can be seen) and the approval; `POST /oauth/__revoke` refuses every refresh token issued so
 * far; `GET /oauth/__stats` counts what was issued.
 *
 * @example
 *   const server = await startMcpServer({ mounts: [oauthMount({ accessTokenTtlS: 3600 })] });
 *   // OAuth-protected MCP at `${server.url}/oauth/mcp`
 */
import { createHash, randomBytes } from "node:crypto";

/** What the mount uses of the server it is mounted on (server.ts's LocalMcpServer has it). */
interface Host {
  url: string;
  serveStreamable(request: Request): Promise<Response>;
}
type Mount = (request: Request, server: Host) => Promise<Response | null>;

export interface OAuthMountOptions {
  /** Seconds an access token is good for (default 3600). */
  accessTokenTtlS?: number;
  /** Redirect at once instead of showing the Approve page (default false). */
  autoApprove?: boolean;
  /** Where the authorization server lives; its MCP path is `<prefix>/mcp` (default `/oauth`). */
  prefix?: string;
  /** Whether clients may register themselves (RFC 7591; default true). */
  registration?: boolean;
}

export const PROTECTED_PATH = "/oauth/mcp";

interface Client {
  redirectUris: string[];
  name: string;
  /** Only for a client created through `__clients`: the token endpoint then checks it. */
  secret?: string;
}
interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  expiresAt: number;
}

const token = () => randomBytes(24).toString("base64url");
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });

async function formOrJson(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if ((request.headers.get("content-type") ?? "").includes("application/json")) {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export function oauthMount(options: OAuthMountOptions = {}): Mount & { stats: Record<string, number> } {
  const settings = { ttl: options.accessTokenTtlS ?? 3600, autoApprove: options.autoApprove ?? false };
  const ISSUER_PATH = options.prefix ?? "/oauth";
  const protectedPath = `${ISSUER_PATH}/mcp`;
  const registration = options.registration ?? true;
  const clients = new Map<string, Client>();
  const codes = new Map<string, Code>();
  const accessTokens = new Map<string, { expiresAt: number; clientId: string }>();
  const refreshTokens = new Map<string, string>();
  const stats = { registered: 0, codes: 0, access_tokens: 0, refreshes: 0, refused_refreshes: 0, basic_auth: 0, post_auth: 0, refused_clients: 0 };

  const metadata = (base: string) => ({
    issuer: `${base}${ISSUER_PATH}`,
    authorization_endpoint: `${base}${ISSUER_PATH}/authorize`,
    token_endpoint: `${base}${ISSUER_PATH}/token`,
    ...(registration ? { registration_endpoint: `${base}${ISSUER_PATH}/register` } : {}),
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: registration ? ["none"] : ["client_secret_basic", "client_secret_post"],
    scopes_supported: ["tools"],
  });

  function issue(clientId: string): Response {
    const access = token();
    const refresh = token();
    accessTokens.set(access, { expiresAt: Date.now() + settings.ttl * 1000, clientId });
    refreshTokens.set(refresh, clientId);
    stats.access_tokens++;
    return json(200, { access_token: access, token_type: "Bearer", expires_in: settings.ttl, refresh_token: refresh, scope: "tools" });
  }

  function approve(params: URLSearchParams): Response {
    const code = token();
    codes.set(code, {
      clientId: params.get("client_id")!,
      redirectUri: params.get("redirect_uri")!,
      challenge: params.get("code_challenge")!,
      expiresAt: Date.now() + 60_000,
    });
    stats.codes++;
    const target = new URL(params.get("redirect_uri")!);
    target.searchParams.set("code", code);
    if (params.get("state")) target.searchParams.set("state", params.get("state")!);
    return new Response(null, { status: 302, headers: { location: target.href, "cache-control": "no-store" } });
  }

  /** The authorization request's problem, or null (an unknown client or redirect is never redirected to). */
  function authorizeIssue(params: URLSearchParams): string | null {
    const client = clients.get(params.get("client_id") ?? "");
    if (!client) return "unknown client_id";
    if (!client.redirectUris.includes(params.get("redirect_uri") ?? "")) return "redirect_uri is not registered";
    if (params.get("response_type") !== "code") return "response_type must be code";
    if (params.get("code_challenge_method") !== "S256" || !params.get("code_challenge")) return "PKCE S256 is required";
    return null;
  }

  /** The client the request authenticates as: HTTP Basic, else the form's client_id (and secret); null when its secret is wrong. */
  function clientOf(request: Request, body: Record<string, unknown>): string | null {
    const basic = /^Basic\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
    const [id, secret] = basic
      ? Buffer.from(basic[1]!, "base64").toString("utf8").split(":").map(decodeURIComponent)
      : [String(body.client_id ?? ""), body.client_secret === undefined ? undefined : String(body.client_secret)];
    const client = clients.get(id ?? "");
    if (client?.secret !== undefined) {
      if (secret !== client.secret) return null;
      if (basic) stats.basic_auth++;
      else stats.post_auth++;
    }
    return id ?? "";
  }

  async function tokenEndpoint(request: Request): Promise<Response> {
    const body = await formOrJson(request);
    const clientId = clientOf(request, body);
    if (clientId === null) {
      stats.refused_clients++;
      return json(401, { error: "invalid_client" });
    }
    if (body.grant_type === "authorization_code") {
      const code = codes.get(String(body.code ?? ""));
      codes.delete(String(body.code ?? ""));
      const valid =
        code &&
        code.expiresAt > Date.now() &&
        code.clientId === clientId &&
        code.redirectUri === body.redirect_uri &&
        s256(String(body.code_verifier ?? "")) === code.challenge;
      return valid ? issue(clientId) : json(400, { error: "invalid_grant" });
    }
    if (body.grant_type === "refresh_token") {
      const refresh = String(body.refresh_token ?? "");
      const owner = refreshTokens.get(refresh);
      refreshTokens.delete(refresh);
      if (!owner || owner !== clientId) {
        stats.refused_refreshes++;
        return json(400, { error: "invalid_grant" });
      }
      stats.refreshes++;
      return issue(clientId);
    }
    return json(400, { error: "unsupported_grant_type" });
  }

  /** Whether the request carries an access token this server issued and that has not expired. */
  function authorised(request: Request): boolean {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
    const known = match ? accessTokens.get(match[1]!) : undefined;
    return !!known && known.expiresAt > Date.now();
  }

  const mount: Mount = async (request, server) => {
    const url = new URL(request.url);
    const path = url.pathname;
    const base = server.url;
    const method = request.method;
    if (
      method === "GET" &&
      (path === `/.well-known/oauth-protected-resource${protectedPath}` || (registration && path === "/.well-known/oauth-protected-resource"))
    ) {
      return json(200, { resource: `${base}${protectedPath}`, authorization_servers: [`${base}${ISSUER_PATH}`], scopes_supported: ["tools"] });
    }
    if (method === "GET" && path === `/.well-known/oauth-authorization-server${ISSUER_PATH}`) return json(200, metadata(base));
    if (method === "POST" && path === `${ISSUER_PATH}/__clients`) {
      const body = await formOrJson(request);
      const uris = Array.isArray(body.redirect_uris) ? body.redirect_uris.filter((u): u is string => typeof u === "string") : [];
      if (typeof body.client_id !== "string" || !body.client_id || uris.length === 0) return json(400, { error: "client_id and redirect_uris are required" });
      clients.set(body.client_id, {
        redirectUris: uris,
        name: "Pre-registered",
        ...(typeof body.client_secret === "string" ? { secret: body.client_secret } : {}),
      });
      return json(201, { client_id: body.client_id });
    }
    if (registration && method === "POST" && path === `${ISSUER_PATH}/register`) {
      const body = await formOrJson(request);
      const uris = Array.isArray(body.redirect_uris) ? body.redirect_uris.filter((u): u is string => typeof u === "string") : [];
      if (uris.length === 0) return json(400, { error: "invalid_redirect_uri" });
      const clientId = `client-${token()}`;
      clients.set(clientId, { redirectUris: uris, name: String(body.client_name ?? "") });
      stats.registered++;
      return json(201, { client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), redirect_uris: uris, token_endpoint_auth_method: "none" });
    }
    if (path === `${ISSUER_PATH}/authorize` && (method === "GET" || method === "POST")) {
      const params =
        method === "GET" ? url.searchParams : new URLSearchParams(Object.entries(await formOrJson(request)).map(([k, v]): [string, string] => [k, String(v)]));
      const problem = authorizeIssue(params);
      if (problem) return new Response(`Authorization refused: ${problem}`, { status: 400, headers: { "content-type": "text/plain" } });
      if (method === "POST" || settings.autoApprove) return approve(params);
      const client = clients.get(params.get("client_id")!)!;
      const hidden = [...params].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join("");
      return new Response(
        `<!doctype html><title>Authorize</title><h1>Local MCP authorization</h1><p>${escapeHtml(client.name || "A client")} asks to use the local MCP server's tools.</p><form method="post" action="${ISSUER_PATH}/authorize">${hidden}<button type="submit">Approve</button></form>`,
        { status: 200, headers: { "content-type": "text/html; charset=utf-8" } },
      );
    }
    if (method === "POST" && path === `${ISSUER_PATH}/token`) return tokenEndpoint(request);
    if (method === "POST" && path === `${ISSUER_PATH}/__settings`) {
      const body = await formOrJson(request);
      // JSON or a form (curl -d): numbers and booleans may come as text.
      const ttl = Number(body.access_token_ttl_s);
      if (body.access_token_ttl_s !== undefined && Number.isFinite(ttl) && ttl > 0) settings.ttl = ttl;
      if (body.auto_approve !== undefined) settings.autoApprove = body.auto_approve === true || body.auto_approve === "true";
      return json(200, { access_token_ttl_s: settings.ttl, auto_approve: settings.autoApprove });
    }
    if (method === "POST" && path === `${ISSUER_PATH}/__revoke`) {
      refreshTokens.clear();
      return json(200, { revoked: true });
    }
    if (method === "GET" && path === `${ISSUER_PATH}/__stats`) return json(200, stats);
    if (path === protectedPath) {
      if (!authorised(request)) {
        const metadataUrl = `${base}/.well-known/oauth-protected-resource${protectedPath}`;
        return json(401, { error: "invalid_token" }, { "www-authenticate": `Bearer resource_metadata="${metadataUrl}", scope="tools"` });
      }
      return server.serveStreamable(request);
    }
    return null;
  };
  return Object.assign(mount, { stats });
}
