/**
 * The requests of OAuth 2.1 for an MCP connection: discovery from the server's 401 (RFC 9728,
 * then RFC 8414 / OpenID Connect), dynamic client registration (RFC 7591), the code exchange
 * and refresh. Every URL passes the platform's egress rules before it is fetched, as model
 * base URLs do, and a redirect is never followed (its target was not checked). Tokens and
 * secrets never reach an error's message.
 *
 * @example
 *   const f = egressFetch(allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS));
 *   const found = await discover("https://mcp.example/mcp", f);
 *   const client = await registerClient(found.metadata, { redirectUri, clientName: "Guilds" }, f);
 */

import { OAUTH_ANSWER_CAP, RESOURCE_METADATA_CAP } from "../http/answer-caps";
import { type AnswerCap, AnswerTooLarge, readJsonWithin } from "../http/read-within";
import { checkModelUrl, type EgressAllowance } from "../providers/egress";
import {
  type AuthorizationServerMetadata,
  authorizationServerUrls,
  bearerChallenge,
  expiryOf,
  type OAuthCredential,
  type OAuthFacts,
  OAuthMetadataError,
  parseAuthorizationServerMetadata,
  parseProtectedResourceMetadata,
  protectedResourceUrls,
  RegisteredClient,
  TokenResponse,
} from "./oauth";

export type OAuthFetch = (url: string, init?: RequestInit) => Promise<Response>;

/**
 * - egress: a URL the platform does not call (its message says why);
 * - discovery: no usable metadata; registration: the server refused or cannot register a client;
 * - refused: the token endpoint refused the code or the refresh token (invalid_grant and the like);
 * - unreachable: a network failure, timeout, redirect or 5xx.
 */
export type OAuthErrorKind = "egress" | "discovery" | "registration" | "refused" | "unreachable";

export class OAuthError extends Error {
  override readonly name = "OAuthError";
  constructor(
    readonly kind: OAuthErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 15_000;

/** A fetch that refuses URLs the egress rules refuse, follows no redirect and gives up after 15 s. */
export function egressFetch(allow: EgressAllowance, fetchImpl: OAuthFetch = (url, init) => fetch(url, init)): OAuthFetch {
  return async (url, init) => {
    const verdict = checkModelUrl(url, allow);
    if (!verdict.ok) throw new OAuthError("egress", `${url} ${verdict.message}`);
    let response: Response;
    try {
      response = await fetchImpl(url, { ...init, redirect: "manual", signal: init?.signal ?? AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new OAuthError("unreachable", `${url} could not be reached (${error instanceof Error ? error.name : "error"})`);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new OAuthError("unreachable", `${url} answered a redirect (${response.status}), which is not followed`);
    }
    return response;
  };
}

/** The answer's JSON within the cap, or null when it is not JSON; past the cap an `unreachable` error naming it. */
async function jsonOf(response: Response, cap: AnswerCap = OAUTH_ANSWER_CAP): Promise<unknown> {
  try {
    return await readJsonWithin(response, cap);
  } catch (error) {
    if (error instanceof AnswerTooLarge) throw new OAuthError("unreachable", error.message);
    return null;
  }
}

/** The first of `urls` that answers 200 with JSON, or null when each answers 4xx. */
async function firstDocument(urls: string[], f: OAuthFetch, cap: AnswerCap): Promise<{ url: string; body: unknown } | null> {
  for (const url of urls) {
    const response = await f(url, { headers: { accept: "application/json", "mcp-protocol-version": "2025-06-18" } });
    if (response.ok) return { url, body: await jsonOf(response, cap) };
    await response.body?.cancel();
    if (response.status >= 500) throw new OAuthError("unreachable", `${url} answered ${response.status}`);
  }
  return null;
}

export interface Discovered {
  resource: string;
  metadata: AuthorizationServerMetadata;
  /** The scope the server's 401 asked for, else the resource's supported scopes. */
  scope: string | null;
}

/**
 * The authorization server of the MCP server at `serverUrl`: an unauthenticated request's
 * 401 names its resource metadata (or the well-known places are tried), which names the
 * authorization server, whose metadata is then read.
 */
export async function discover(serverUrl: string, f: OAuthFetch): Promise<Discovered> {
  const probe = await f(serverUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
  });
  await probe.body?.cancel();
  const challenge = probe.status === 401 ? bearerChallenge(probe.headers.get("www-authenticate")) : {};
  const candidates = challenge.resource_metadata ? [challenge.resource_metadata] : protectedResourceUrls(serverUrl);
  const found = await firstDocument(candidates, f, RESOURCE_METADATA_CAP);
  let issuer: string;
  let resource = serverUrl;
  let scope: string | null = challenge.scope ?? null;
  try {
    if (found) {
      const prm = parseProtectedResourceMetadata(found.body, serverUrl);
      issuer = prm.authorization_servers[0]!;
      resource = prm.resource;
      scope ??= prm.scopes_supported?.join(" ") || null;
    } else {
      // Servers of the 2025-03-26 spec: the server's origin is its own authorization server.
      issuer = new URL(serverUrl).origin;
    }
    const document = await firstDocument(authorizationServerUrls(issuer), f, OAUTH_ANSWER_CAP);
    if (!document) throw new OAuthMetadataError(`No authorization server metadata found for ${issuer}`);
    return { resource, metadata: parseAuthorizationServerMetadata(document.body, issuer), scope };
  } catch (error) {
    if (error instanceof OAuthMetadataError) throw new OAuthError("discovery", error.message);
    throw error;
  }
}

/** Registers the platform as a public client (PKCE, no secret asked for) for `redirectUri`. */
export async function registerClient(
  metadata: AuthorizationServerMetadata,
  input: { redirectUri: string; clientName: string; scope: string | null },
  f: OAuthFetch,
): Promise<RegisteredClient> {
  if (!metadata.registration_endpoint) {
    throw new OAuthError(
      "registration",
      `The authorization server ${metadata.issuer} offers no dynamic client registration (registration_endpoint): register a client with it and give it to the connection`,
    );
  }
  const response = await f(metadata.registration_endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      client_name: input.clientName,
      redirect_uris: [input.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(input.scope ? { scope: input.scope } : {}),
    }),
  });
  const body = await jsonOf(response);
  if (!response.ok)
    throw new OAuthError(response.status >= 500 ? "unreachable" : "registration", `Client registration answered ${response.status}${errorCode(body)}`);
  const client = RegisteredClient.safeParse(body);
  if (!client.success) throw new OAuthError("registration", "Client registration answered no client_id");
  return client.data;
}

/** ` (invalid_grant)` from an OAuth error body; the description is the server's and is not passed on. */
function errorCode(body: unknown): string {
  const code = (body as { error?: unknown } | null)?.error;
  return typeof code === "string" && /^[\w.-]{1,64}$/.test(code) ? ` (${code})` : "";
}

export interface Tokens {
  credential: OAuthCredential;
  expiresAt: string | null;
  scope: string | null;
}

async function tokenRequest(facts: OAuthFacts, credential: Pick<OAuthCredential, "client_secret">, grant: Record<string, string>, f: OAuthFetch, now: number) {
  const params = new URLSearchParams({ ...grant, resource: facts.resource });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  const clientId = facts.client_id ?? "";
  if (credential.client_secret && facts.token_endpoint_auth_method === "client_secret_basic") {
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(credential.client_secret)}`)}`;
  } else {
    params.set("client_id", clientId);
    if (credential.client_secret) params.set("client_secret", credential.client_secret);
  }
  const response = await f(facts.token_endpoint, { method: "POST", headers, body: params.toString() });
  const body = await jsonOf(response);
  if (response.status >= 500) throw new OAuthError("unreachable", `The token endpoint answered ${response.status}`);
  if (!response.ok) throw new OAuthError("refused", `The token endpoint refused the grant: ${response.status}${errorCode(body)}`);
  const token = TokenResponse.safeParse(body);
  if (!token.success) throw new OAuthError("refused", "The token endpoint answered no bearer access_token");
  return { token: token.data, expiresAt: expiryOf(token.data, now) };
}

/** The tokens for an authorization code and its PKCE verifier. */
export async function exchangeCode(
  facts: OAuthFacts,
  credential: Pick<OAuthCredential, "client_secret">,
  input: { code: string; verifier: string; redirectUri: string },
  f: OAuthFetch,
  now = Date.now(),
): Promise<Tokens> {
  const grant = { grant_type: "authorization_code", code: input.code, code_verifier: input.verifier, redirect_uri: input.redirectUri };
  const { token, expiresAt } = await tokenRequest(facts, credential, grant, f, now);
  return {
    credential: {
      kind: "oauth",
      access_token: token.access_token,
      ...(token.refresh_token ? { refresh_token: token.refresh_token } : {}),
      ...secretOf(credential),
    },
    expiresAt,
    scope: token.scope ?? facts.scope ?? null,
  };
}

/** New tokens for the credential's refresh token; a server that rotates it sends a new one, else the old one is kept. */
export async function refreshTokens(facts: OAuthFacts, credential: OAuthCredential, f: OAuthFetch, now = Date.now()): Promise<Tokens> {
  if (!credential.refresh_token) throw new OAuthError("refused", "The access token expired and the server gave no refresh token: authorise again");
  const { token, expiresAt } = await tokenRequest(facts, credential, { grant_type: "refresh_token", refresh_token: credential.refresh_token }, f, now);
  return {
    credential: { kind: "oauth", access_token: token.access_token, refresh_token: token.refresh_token ?? credential.refresh_token, ...secretOf(credential) },
    expiresAt,
    scope: token.scope ?? facts.scope ?? null,
  };
}

const secretOf = (credential: Pick<OAuthCredential, "client_secret">) => (credential.client_secret ? { client_secret: credential.client_secret } : {});
