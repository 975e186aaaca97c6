/**
 * The OAuth-protected variant of the local MCP server: a small OAuth 2.1 authorization server
 * on loopback (RFC 8414 metadata at `/.well-known/oauth-authorization-server/oauth`, dynamic
 * registration, an authorize page with an Approve button or auto-approval, a token endpoint
 * with rotating refresh tokens) in front of the MCP path `/oauth/mcp`, which answers 401 with
 * its resource metadata (RFC 9728) until a valid access token comes. Access tokens live
 * `accessTokenTtlS` seconds (short in tests, so refresh can be seen).
 *
 * Test hooks (loopback only, as the whole server is): `POST /oauth/__revoke` refuses every
 * refresh token issued so far; `GET /oauth/__stats` counts what was issued.
 *
 * @example
 *   const oauth = oauthLayer({ base: () => "http://127.0.0.1:8790", accessTokenTtlS: 3600, autoApprove: false });
 *   http.createServer((req, res) => oauth.handle(req, res, () => mcp(req, res)));
 */
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export interface OAuthLayerOptions {
  /** The server's own origin, once it listens. */
  base: () => string;
  /** Seconds an access token is good for (default 3600). */
  accessTokenTtlS?: number;
  /** Redirect at once instead of showing the Approve page. */
  autoApprove?: boolean;
}

export const PROTECTED_PATH = "/oauth/mcp";
const ISSUER_PATH = "/oauth";

interface Client {
  redirectUris: string[];
  name: string;
}
interface Code {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string | null;
  expiresAt: number;
}

const token = () => randomBytes(24).toString("base64url");
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

async function formOrJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if ((req.headers["content-type"] ?? "").includes("application/json")) {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export function oauthLayer(options: OAuthLayerOptions) {
  const ttl = () => options.accessTokenTtlS ?? 3600;
  const clients = new Map<string, Client>();
  const codes = new Map<string, Code>();
  const accessTokens = new Map<string, { expiresAt: number; clientId: string }>();
  const refreshTokens = new Map<string, string>();
  const stats = { registered: 0, codes: 0, access_tokens: 0, refreshes: 0, refused_refreshes: 0 };

  const issuer = () => `${options.base()}${ISSUER_PATH}`;
  const resourceMetadataUrl = () => `${options.base()}/.well-known/oauth-protected-resource${PROTECTED_PATH}`;

  const metadata = () => ({
    issuer: issuer(),
    authorization_endpoint: `${issuer()}/authorize`,
    token_endpoint: `${issuer()}/token`,
    registration_endpoint: `${issuer()}/register`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    scopes_supported: ["tools"],
  });

  function issue(res: ServerResponse, clientId: string) {
    const access = token();
    const refresh = token();
    accessTokens.set(access, { expiresAt: Date.now() + ttl() * 1000, clientId });
    refreshTokens.set(refresh, clientId);
    stats.access_tokens++;
    json(res, 200, { access_token: access, token_type: "Bearer", expires_in: ttl(), refresh_token: refresh, scope: "tools" });
  }

  function approve(res: ServerResponse, params: URLSearchParams) {
    const code = token();
    codes.set(code, {
      clientId: params.get("client_id")!,
      redirectUri: params.get("redirect_uri")!,
      challenge: params.get("code_challenge")!,
      resource: params.get("resource"),
      expiresAt: Date.now() + 60_000,
    });
    stats.codes++;
    const target = new URL(params.get("redirect_uri")!);
    target.searchParams.set("code", code);
    if (params.get("state")) target.searchParams.set("state", params.get("state")!);
    res.writeHead(302, { location: target.href, "cache-control": "no-store" });
    res.end();
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

  async function tokenEndpoint(req: IncomingMessage, res: ServerResponse) {
    const body = await formOrJson(req);
    const clientId = String(body.client_id ?? "");
    if (body.grant_type === "authorization_code") {
      const code = codes.get(String(body.code ?? ""));
      codes.delete(String(body.code ?? ""));
      const valid =
        code &&
        code.expiresAt > Date.now() &&
        code.clientId === clientId &&
        code.redirectUri === body.redirect_uri &&
        s256(String(body.code_verifier ?? "")) === code.challenge;
      if (!valid) return json(res, 400, { error: "invalid_grant" });
      return issue(res, clientId);
    }
    if (body.grant_type === "refresh_token") {
      const refresh = String(body.refresh_token ?? "");
      const owner = refreshTokens.get(refresh);
      refreshTokens.delete(refresh);
      if (!owner || owner !== clientId) {
        stats.refused_refreshes++;
        return json(res, 400, { error: "invalid_grant" });
      }
      stats.refreshes++;
      return issue(res, clientId);
    }
    return json(res, 400, { error: "unsupported_grant_type" });
  }

  /** Whether the request carries an access token this server issued and that has not expired. */
  function authorised(req: IncomingMessage): boolean {
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    const known = match ? accessTokens.get(match[1]!) : undefined;
    return !!known && known.expiresAt > Date.now();
  }

  /**
   * Answers the authorization server's routes and guards the protected path; `next` serves
   * everything else (the protected path's MCP requests once authorised, with the path as is).
   */
  async function handle(req: IncomingMessage, res: ServerResponse, next: () => void): Promise<void> {
    const url = new URL(req.url ?? "/", options.base());
    const path = url.pathname;
    if (req.method === "GET" && (path === `/.well-known/oauth-protected-resource${PROTECTED_PATH}` || path === "/.well-known/oauth-protected-resource")) {
      return json(res, 200, { resource: `${options.base()}${PROTECTED_PATH}`, authorization_servers: [issuer()], scopes_supported: ["tools"] });
    }
    if (req.method === "GET" && path === `/.well-known/oauth-authorization-server${ISSUER_PATH}`) return json(res, 200, metadata());
    if (req.method === "POST" && path === `${ISSUER_PATH}/register`) {
      const body = await formOrJson(req);
      const uris = Array.isArray(body.redirect_uris) ? body.redirect_uris.filter((u): u is string => typeof u === "string") : [];
      if (uris.length === 0) return json(res, 400, { error: "invalid_redirect_uri" });
      const clientId = `client-${token()}`;
      clients.set(clientId, { redirectUris: uris, name: String(body.client_name ?? "") });
      stats.registered++;
      return json(res, 201, { client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), redirect_uris: uris, token_endpoint_auth_method: "none" });
    }
    if (path === `${ISSUER_PATH}/authorize` && (req.method === "GET" || req.method === "POST")) {
      const params = req.method === "GET" ? url.searchParams : new URLSearchParams(Object.entries(await formOrJson(req)).map(([k, v]) => [k, String(v)]));
      const issue = authorizeIssue(params);
      if (issue) {
        res.writeHead(400, { "content-type": "text/plain" });
        return void res.end(`Authorization refused: ${issue}`);
      }
      if (req.method === "POST" || options.autoApprove) return approve(res, params);
      const client = clients.get(params.get("client_id")!)!;
      const hidden = [...params].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return void res.end(
        `<!doctype html><title>Authorize</title><h1>Local MCP authorization</h1><p>${escapeHtml(client.name || "A client")} asks to use the local MCP server's tools.</p><form method="post" action="${ISSUER_PATH}/authorize">${hidden}<button type="submit">Approve</button></form>`,
      );
    }
    if (req.method === "POST" && path === `${ISSUER_PATH}/token`) return tokenEndpoint(req, res);
    if (req.method === "POST" && path === `${ISSUER_PATH}/__revoke`) {
      refreshTokens.clear();
      return json(res, 200, { revoked: true });
    }
    if (req.method === "GET" && path === `${ISSUER_PATH}/__stats`) return json(res, 200, stats);
    if (path === PROTECTED_PATH || path.startsWith(`${PROTECTED_PATH}/`)) {
      if (!authorised(req)) {
        return json(res, 401, { error: "invalid_token" }, { "www-authenticate": `Bearer resource_metadata="${resourceMetadataUrl()}", scope="tools"` });
      }
    }
    next();
  }

  return { handle, stats, resourceMetadataUrl };
}
