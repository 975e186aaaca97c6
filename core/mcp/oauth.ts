/**
 * The pure parts of OAuth 2.1 for MCP connections (the MCP authorization spec): the signed
 * single-use state, PKCE S256, where discovery looks (RFC 9728 protected resource metadata,
 * RFC 8414 / OpenID Connect authorization server metadata), reading what those documents and
 * the token endpoint answer, and when an access token is refreshed. No fetch and nothing of
 * Workers here: core/mcp/oauth-flow.ts does the requests.
 *
 * @example
 *   const key = await oauthStateKey(env.SECRETS_KEK);
 *   const state = await mintOauthState(key, { organisationId, connectionId, nonce: randomNonce(), expiresAt: Date.now() + OAUTH_STATE_TTL_MS });
 *   await readOauthState(key, state, { organisationId, now: Date.now() }) // { connectionId, nonce, expiresAt }
 */

import * as z from "zod";
import { base64url, derivedHmacKey, fromBase64url, type HmacKey } from "../auth/signing";

/** Long enough to sign in at the authorization server and approve; short in a log. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** An access token with less than this left is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 60 * 1000;

/** The console page the authorization server sends the operator back to. */
export const OAUTH_CALLBACK_PATH = "/mcp/callback";

/** The HMAC key of MCP OAuth states, under its own label: no other signed string verifies as one. */
export const oauthStateKey = (secret: string | undefined): Promise<HmacKey> => derivedHmacKey(secret, "guilds mcp oauth state v1");

/** 16 random bytes, base64url (22 characters). */
export const randomNonce = (): string => base64url(crypto.getRandomValues(new Uint8Array(16)));

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const STATE = new RegExp(`^(${UUID})\\.([A-Za-z0-9_-]{22})\\.([0-9a-z]{1,12})\\.([A-Za-z0-9_-]{43})$`);

const signed = (organisationId: string, connectionId: string, nonce: string, expiresAt: number) =>
  new TextEncoder().encode(`mcp-oauth:${organisationId}:${connectionId}:${nonce}:${expiresAt}`);

/**
 * A state `<connection>.<nonce>.<expiry base36>.<signature>`. The organisation is inside the
 * signature only: the state names the connection the callback completes, and only a token
 * of the organisation it was minted for can present it.
 */
export async function mintOauthState(key: HmacKey, input: { organisationId: string; connectionId: string; nonce: string; expiresAt: number }): Promise<string> {
  const expiresAt = Math.floor(input.expiresAt);
  const signature = await crypto.subtle.sign("HMAC", key, signed(input.organisationId, input.connectionId, input.nonce, expiresAt));
  return `${input.connectionId}.${input.nonce}.${expiresAt.toString(36)}.${base64url(new Uint8Array(signature))}`;
}

/**
 * The state's connection, nonce and expiry when it was minted for this organisation and has
 * not expired; null for anything else (another organisation's, altered, expired, malformed).
 * Single use is kept in Postgres: a signature alone cannot be spent.
 */
export async function readOauthState(
  key: HmacKey,
  state: string,
  expected: { organisationId: string; now: number },
): Promise<{ connectionId: string; nonce: string; expiresAt: number } | null> {
  const match = STATE.exec(state);
  if (!match) return null;
  const [, connectionId, nonce, expiry, signature] = match as unknown as [string, string, string, string, string];
  const expiresAt = Number.parseInt(expiry, 36);
  if (!(expiresAt > expected.now)) return null;
  const valid = await crypto.subtle.verify("HMAC", key, fromBase64url(signature), signed(expected.organisationId, connectionId, nonce, expiresAt));
  return valid ? { connectionId, nonce, expiresAt } : null;
}

/** A PKCE code verifier: 32 random bytes, base64url (43 characters, RFC 7636's minimum length). */
export const pkceVerifier = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export async function pkceChallenge(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/**
 * The parameters of a `WWW-Authenticate: Bearer …` challenge (RFC 6750 / RFC 9728): the
 * resource metadata URL and the scope a 401 names.
 *
 * @example bearerChallenge('Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource", scope="read"')
 * // { resource_metadata: "https://mcp.example/.well-known/oauth-protected-resource", scope: "read" }
 */
export function bearerChallenge(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  const bearer = /(?:^|,\s*)Bearer\s+(.*)$/i.exec(header.trim());
  if (!bearer) return out;
  for (const m of bearer[1]!.matchAll(/([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    out[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!;
  }
  return out;
}

const trimSlash = (path: string) => (path === "/" ? "" : path.replace(/\/+$/, ""));

/**
 * Where a server's protected resource metadata may be (RFC 9728 §3.1): under the well-known
 * prefix with the server's path, then at the origin's root.
 *
 * @example protectedResourceUrls("https://mcp.example/v1/mcp") // [".../.well-known/oauth-protected-resource/v1/mcp", ".../.well-known/oauth-protected-resource"]
 */
export function protectedResourceUrls(serverUrl: string): string[] {
  const url = new URL(serverUrl);
  const path = trimSlash(url.pathname);
  const root = `${url.origin}/.well-known/oauth-protected-resource`;
  return path ? [`${root}${path}`, root] : [root];
}

/**
 * Where an issuer's metadata may be, in the MCP spec's order: RFC 8414 with the path
 * inserted, OpenID Connect with the path inserted, then OpenID Connect appended to the path.
 *
 * @example authorizationServerUrls("https://auth.example") // [".../.well-known/oauth-authorization-server", ".../.well-known/openid-configuration"]
 */
export function authorizationServerUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = trimSlash(url.pathname);
  if (!path) return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** RFC 9728 metadata: which authorization servers issue tokens for the resource. */
export const ProtectedResourceMetadata = z.looseObject({
  resource: z.string().min(1),
  authorization_servers: z.array(z.url()).min(1),
  scopes_supported: z.array(z.string()).optional(),
});
export type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadata>;

/** RFC 8414 / OpenID Connect metadata: the endpoints used here and what the server supports. */
export const AuthorizationServerMetadata = z.looseObject({
  issuer: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  registration_endpoint: z.url().optional(),
  scopes_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});
export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadata>;

/** Why metadata is refused; the message names the document, never a token. */
export class OAuthMetadataError extends Error {
  override readonly name = "OAuthMetadataError";
}

const sameUrl = (a: string, b: string) => trimSlash(new URL(a).href) === trimSlash(new URL(b).href);

/**
 * Authorization server metadata, checked as RFC 8414 §3.3 and the MCP spec ask: its issuer is
 * the one it was looked up for, and it offers PKCE with S256 (a server that does not say so
 * is refused: the code would travel unbound).
 */
export function parseAuthorizationServerMetadata(body: unknown, issuer: string): AuthorizationServerMetadata {
  const parsed = AuthorizationServerMetadata.safeParse(body);
  if (!parsed.success) throw new OAuthMetadataError(`The authorization server metadata of ${issuer} lacks an issuer, authorization_endpoint or token_endpoint`);
  if (!sameUrl(parsed.data.issuer, issuer)) throw new OAuthMetadataError(`The authorization server metadata names issuer ${parsed.data.issuer}, not ${issuer}`);
  if (!parsed.data.code_challenge_methods_supported?.includes("S256")) {
    throw new OAuthMetadataError(`The authorization server ${issuer} does not offer PKCE with S256 (code_challenge_methods_supported)`);
  }
  return parsed.data;
}

/** Protected resource metadata for the server at `serverUrl`; its resource must be that server (RFC 9728 §3.3). */
export function parseProtectedResourceMetadata(body: unknown, serverUrl: string): ProtectedResourceMetadata {
  const parsed = ProtectedResourceMetadata.safeParse(body);
  if (!parsed.success) throw new OAuthMetadataError(`The protected resource metadata of ${serverUrl} lacks its resource or authorization_servers`);
  const resource = new URL(parsed.data.resource);
  const server = new URL(serverUrl);
  // The resource may name the server or a prefix of its path (a server at /v1/mcp under /v1).
  if (resource.origin !== server.origin || !server.pathname.startsWith(trimSlash(resource.pathname))) {
    throw new OAuthMetadataError(`The protected resource metadata names resource ${parsed.data.resource}, which is not ${serverUrl}`);
  }
  return parsed.data;
}

/** A token endpoint's success answer (RFC 6749 §5.1). */
export const TokenResponse = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === "bearer", "must be Bearer"),
  expires_in: z.coerce.number().int().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

/** A dynamic client registration's answer (RFC 7591 §3.2.1). */
export const RegisteredClient = z.looseObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1).optional(),
  token_endpoint_auth_method: z.string().optional(),
});
export type RegisteredClient = z.infer<typeof RegisteredClient>;

/**
 * The non-secret facts of an OAuth connection, stored in `mcp_connections.oauth` and answered
 * by the API: where its tokens come from, the client it is, and when the access token expires.
 */
export interface OAuthFacts {
  issuer: string;
  resource: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string | null;
  client_id?: string | null;
  /** How the client authenticates at the token endpoint: 'none' (public, PKCE only), 'client_secret_post' or 'client_secret_basic'. */
  token_endpoint_auth_method?: string | null;
  /** The redirect URI the client was registered with; another one registers again. */
  redirect_uri?: string | null;
  /** The operator gave the client (no dynamic registration): it is never registered again. */
  preregistered?: boolean;
  scope?: string | null;
  /** ISO time the access token expires, if the server said. */
  expires_at?: string | null;
  /** The server said its authorization responses carry `iss` (RFC 9207): one without it is refused. */
  iss_parameter_supported?: boolean;
}

/** The sealed credential of an OAuth connection (as `{kind:"bearer", token}` is for bearer ones). */
export interface OAuthCredential {
  kind: "oauth";
  /** Empty until the first code exchange (a registered client's secret may come first). */
  access_token: string;
  refresh_token?: string;
  client_secret?: string;
}

/**
 * What a connection's OAuth facts start as when the operator gave its client: the client,
 * marked never to be registered again; discovery adds the rest at the first authorisation.
 *
 * @example preregisteredClient({ id: "abc", secret: "s" }) // { client_id: "abc", token_endpoint_auth_method: "client_secret_basic", preregistered: true }
 */
export function preregisteredClient(client: { id: string; secret?: string | undefined; auth_method?: string | undefined }): Partial<OAuthFacts> {
  return { client_id: client.id, token_endpoint_auth_method: client.auth_method ?? (client.secret ? "client_secret_basic" : "none"), preregistered: true };
}

/** The facts as stored, or null when the column holds no usable endpoints. */
export function readFacts(stored: unknown): OAuthFacts | null {
  if (!stored || typeof stored !== "object") return null;
  const facts = stored as Partial<OAuthFacts>;
  return typeof facts.issuer === "string" && typeof facts.token_endpoint === "string" && typeof facts.authorization_endpoint === "string"
    ? (facts as OAuthFacts)
    : null;
}

/** The authorization endpoint with the request's parameters (RFC 6749 §4.1.1, RFC 7636, RFC 8707's resource). */
export function authorizationUrl(
  facts: Pick<OAuthFacts, "authorization_endpoint" | "resource" | "scope">,
  request: { clientId: string; redirectUri: string; state: string; challenge: string },
): string {
  const url = new URL(facts.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", request.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri);
  url.searchParams.set("state", request.state);
  url.searchParams.set("code_challenge", request.challenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("resource", facts.resource);
  if (facts.scope) url.searchParams.set("scope", facts.scope);
  return url.href;
}

/**
 * Why an authorization response's `iss` is refused (RFC 9207 §2.4), or null: present, it must be
 * the issuer the operator was sent to; absent, the server must not have announced it. This
 * keeps a code another authorization server issued from being taken to this one's token endpoint.
 *
 * @example issuerRefusal({ issuer: "https://auth.example", iss_parameter_supported: true }, undefined) // "…did not name its issuer (iss)…"
 */
export function issuerRefusal(facts: Pick<OAuthFacts, "issuer" | "iss_parameter_supported">, iss: string | undefined): string | null {
  if (iss === undefined || iss === "") {
    return facts.iss_parameter_supported === true
      ? `The authorization response did not name its issuer (iss), which ${facts.issuer} announces it always does`
      : null;
  }
  if (iss === facts.issuer) return null;
  const shown = iss.length > 200 ? `${iss.slice(0, 200)}…` : iss;
  return `The authorization response names issuer ${JSON.stringify(shown)}, not ${facts.issuer}, where the authorisation was started`;
}

/**
 * Where an OAuth connection signs in and where its tokens come from, as origins the operator
 * can read before authorising: a server could pair a known provider's sign-in page with a
 * token endpoint of its own.
 *
 * @example signInOrigins({ issuer: "https://auth.example", authorization_endpoint: "https://auth.example/authorize", token_endpoint: "https://tokens.example/token" })
 * // { issuer: "https://auth.example", authorization_origin: "https://auth.example", token_origin: "https://tokens.example" }
 */
export function signInOrigins(facts: Pick<OAuthFacts, "issuer" | "authorization_endpoint" | "token_endpoint">) {
  const origin = (url: string) => {
    try {
      return new URL(url).origin;
    } catch {
      return url;
    }
  };
  return { issuer: facts.issuer, authorization_origin: origin(facts.authorization_endpoint), token_origin: origin(facts.token_endpoint) };
}

/** When a token answer's access token expires, or null when the server did not say. */
export const expiryOf = (token: Pick<TokenResponse, "expires_in">, now: number): string | null =>
  token.expires_in ? new Date(now + token.expires_in * 1000).toISOString() : null;

/**
 * Whether the access token is refreshed before use: it expires within the margin (or has).
 * A token without an expiry is used until the server refuses it.
 *
 * @example refreshDue("2026-01-01T00:00:30Z", Date.parse("2026-01-01T00:00:00Z")) // true
 */
export function refreshDue(expiresAt: string | null | undefined, now: number, marginMs = REFRESH_MARGIN_MS): boolean {
  if (!expiresAt) return false;
  const at = Date.parse(expiresAt);
  return Number.isNaN(at) || at - now < marginMs;
}
