import { Hono } from "hono";
import type { Env } from "../../bindings/env";
import { getConnection } from "../../core/db/mcp";
import {
  authorizationUrl,
  issuerRefusal,
  mintOauthState,
  OAUTH_CALLBACK_PATH,
  OAUTH_STATE_TTL_MS,
  type OAuthCredential,
  type OAuthFacts,
  oauthStateKey,
  pkceChallenge,
  pkceVerifier,
  randomNonce,
  readFacts,
  readOauthState,
  signInOrigins,
} from "../../core/mcp/oauth";
import { discover, egressFetch, exchangeCode, OAuthError, type OAuthFetch, registerClient } from "../../core/mcp/oauth-flow";
import { type McpConnectionRow, openOauthCredential, saveOauthState, spendOauthState, storeOauthTokens } from "../../core/mcp/oauth-store";
import { allowanceFrom, checkModelUrl } from "../../core/providers/egress";
import { keySetFrom } from "../../core/secrets/crypto";
import type { AppEnv } from "../http/context";
import { failure, jsonBody, ok, operation, pathId } from "../http/contract";
import { ApiError, notFound } from "../http/errors";
import { McpAuthorization, McpOAuthCallback, McpOAuthResult } from "./mcp-oauth.schema";
import { discoverAfterAuthorisation } from "./mcp-oauth-tools";

/**
 * OAuth 2.1 for MCP connections (auth kind 'oauth'), as the MCP authorization spec has it.
 * `POST /connections/:id/authorize` discovers the server's authorization server, registers the
 * platform as a client when it has none for this redirect, and answers the authorization URL
 * with PKCE S256 and a state signed for the organisation and the connection. The server sends
 * the operator back to the console's callback page (the console's origin, where the operator's
 * token is), which posts code and state to `POST /oauth/callback`: the state is spent once, the
 * code exchanged, the tokens sealed in the connection's credential and its tools discovered.
 * Every URL passes the egress rules model base URLs pass.
 */

const UNREACHABLE = failure("The MCP server or its authorization server could not be reached, redirected, or failed (mcp_oauth.unreachable)");
const UNCONFIGURED = failure("The platform has no SECRETS_KEK to seal tokens and sign states with (secrets.unconfigured)");

async function keys(env: Env) {
  try {
    return { keys: await keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS), stateKey: await oauthStateKey(env.SECRETS_KEK) };
  } catch (error) {
    throw new ApiError(503, "secrets.unconfigured", `MCP OAuth is not available: ${(error as Error).message}`);
  }
}

/** The fetch OAuth's requests use: the egress rules of model base URLs. Tests swap in their own. */
export const oauthFetch = (env: Env): OAuthFetch => egressFetch(allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS));

/** An OAuth failure as the API reports it; the flow's messages never carry a token or a secret. */
function oauthFailure(error: unknown, field: string): never {
  if (!(error instanceof OAuthError)) throw error;
  switch (error.kind) {
    case "egress":
      throw new ApiError(422, "mcp_oauth.url_refused", error.message, { field });
    case "discovery":
      throw new ApiError(422, "mcp_oauth.discovery_failed", error.message, { field });
    case "registration":
      throw new ApiError(422, "mcp_oauth.registration_failed", error.message, { field });
    case "refused":
      throw new ApiError(422, "mcp_oauth.code_refused", error.message, { field });
    default:
      throw new ApiError(502, "mcp_oauth.unreachable", error.message);
  }
}

/** Where the authorization server sends the operator back: the console's page on this origin. */
const redirectUriOf = (requestUrl: string) => new URL(OAUTH_CALLBACK_PATH, requestUrl).href;

/**
 * The connection's facts after discovery, with its registered client kept when it still fits.
 * An operator's client (preregistered) is always kept: the platform cannot register another.
 */
async function prepareClient(row: McpConnectionRow, credential: OAuthCredential, redirectUri: string, f: OAuthFetch) {
  const found = await discover(row.url, f);
  const stored = row.oauth as Partial<OAuthFacts>;
  const known = stored.preregistered === true ? stored : readFacts(row.oauth);
  const facts: OAuthFacts = {
    issuer: found.metadata.issuer,
    resource: found.resource,
    authorization_endpoint: found.metadata.authorization_endpoint,
    token_endpoint: found.metadata.token_endpoint,
    registration_endpoint: found.metadata.registration_endpoint ?? null,
    scope: found.scope ?? known?.scope ?? null,
    client_id: known?.client_id ?? null,
    token_endpoint_auth_method: known?.token_endpoint_auth_method ?? null,
    redirect_uri: known?.redirect_uri ?? null,
    expires_at: known?.expires_at ?? null,
    iss_parameter_supported: found.metadata.authorization_response_iss_parameter_supported === true,
  };
  if (known?.preregistered === true && facts.client_id) return { facts: { ...facts, preregistered: true, redirect_uri: redirectUri }, credential };
  if (facts.client_id && known?.issuer === facts.issuer && facts.redirect_uri === redirectUri) return { facts, credential };
  const client = await registerClient(found.metadata, { redirectUri, clientName: "Guilds", scope: facts.scope ?? null }, f);
  const { client_secret: _old, ...rest } = credential;
  return {
    facts: { ...facts, client_id: client.client_id, token_endpoint_auth_method: client.token_endpoint_auth_method ?? "none", redirect_uri: redirectUri },
    credential: { ...rest, ...(client.client_secret ? { client_secret: client.client_secret } : {}) } as OAuthCredential,
  };
}

const needsOauth = (row: McpConnectionRow) => {
  if (row.authKind !== "oauth") throw new ApiError(409, "mcp_connection.not_oauth", `The connection uses auth '${row.authKind}', not OAuth`, { field: "auth" });
};

export const mcpOauthRoutes = new Hono<AppEnv>()
  .post(
    "/connections/:id/authorize",
    operation({
      operationId: "authorizeMcpConnection",
      summary:
        "Start authorising an OAuth connection: its authorization server is discovered (RFC 9728, RFC 8414), the platform registered as a client when needed (RFC 7591), and the authorization URL answered with PKCE S256 and a state good once for ten minutes",
      tag: "MCP",
      responses: { 201: ok("Where to send the operator", McpAuthorization) },
      notFound: "mcp_connection",
      conflict: "mcp_connection.not_oauth: the connection's auth is none or bearer",
      invalid:
        "mcp_oauth.url_refused: a URL of the server's metadata is one the platform does not call; mcp_oauth.discovery_failed: no usable metadata; mcp_oauth.registration_failed: the authorization server would not register a client",
      errors: { 502: UNREACHABLE, 503: UNCONFIGURED },
    }),
    pathId("mcp_connection"),
    async (c) => {
      const db = c.get("db");
      const organisationId = c.get("organisationId");
      const row = await getConnection(db, organisationId, c.req.valid("param").id);
      if (!row) throw notFound("mcp_connection");
      needsOauth(row);
      const { keys: keySet, stateKey } = await keys(c.env);
      const f = oauthFetch(c.env);
      const redirectUri = redirectUriOf(c.req.url);
      const stored = (await openOauthCredential(keySet, row).catch(() => null)) ?? { kind: "oauth" as const, access_token: "" };
      const { facts, credential } = await prepareClient(row, stored, redirectUri, f).catch((error: unknown) => oauthFailure(error, "url"));
      const verdict = checkModelUrl(facts.authorization_endpoint, allowanceFrom(c.env.ALLOW_PRIVATE_MODEL_URLS));
      if (!verdict.ok) throw new ApiError(422, "mcp_oauth.url_refused", `The authorization endpoint ${verdict.message}`, { field: "url" });
      await storeOauthTokens(db, keySet, row, { credential, facts });
      const nonce = randomNonce();
      const verifier = pkceVerifier();
      const expiresAt = Date.now() + OAUTH_STATE_TTL_MS;
      const state = await mintOauthState(stateKey, { organisationId, connectionId: row.id, nonce, expiresAt });
      await saveOauthState(db, keySet, { organisationId, connectionId: row.id, nonce, verifier, redirectUri, expiresAt: new Date(expiresAt) });
      const url = authorizationUrl(facts, { clientId: facts.client_id!, redirectUri, state, challenge: await pkceChallenge(verifier) });
      c.header("cache-control", "no-store");
      return c.json(
        { authorization_url: url, redirect_uri: redirectUri, expires_at: new Date(expiresAt).toISOString(), authorization_server: signInOrigins(facts) },
        201,
      );
    },
  )
  .post(
    "/oauth/callback",
    operation({
      operationId: "completeMcpAuthorization",
      summary:
        "Complete an authorisation with what the authorization server's redirect carried: the state must be this organisation's and unspent; the code is exchanged, the tokens sealed, and the connection's tools discovered",
      tag: "MCP",
      responses: { 200: ok("The connection's state after the exchange and discovery", McpOAuthResult) },
      body: true,
      notFound: "mcp_connection",
      invalid:
        "mcp_oauth.state_invalid: the state is not one this organisation was given, or it expired; mcp_oauth.issuer_mismatch: the response's iss is not the authorization server's issuer, or is missing where the server announces it (RFC 9207); mcp_oauth.code_refused: the token endpoint refused the code; mcp_oauth.url_refused: the token endpoint is one the platform does not call",
      conflict:
        "mcp_oauth.state_used: the state was spent already (authorise again); mcp_oauth.no_client: the connection has no registered client; mcp_connection.not_oauth: the connection's auth is no longer OAuth",
      errors: { 502: UNREACHABLE, 503: UNCONFIGURED },
    }),
    jsonBody(McpOAuthCallback),
    async (c) => {
      const { code, state, iss } = c.req.valid("json");
      const db = c.get("db");
      const organisationId = c.get("organisationId");
      const { keys: keySet, stateKey } = await keys(c.env);
      const claim = await readOauthState(stateKey, state, { organisationId, now: Date.now() });
      if (!claim) {
        throw new ApiError(422, "mcp_oauth.state_invalid", "The state is not one this organisation was given, or it has expired: authorise again", {
          field: "state",
        });
      }
      const row = await getConnection(db, organisationId, claim.connectionId);
      if (!row) throw notFound("mcp_connection");
      needsOauth(row);
      const spent = await spendOauthState(db, keySet, { organisationId, connectionId: row.id, nonce: claim.nonce });
      if (!spent) throw new ApiError(409, "mcp_oauth.state_used", "The state has been used already: authorise again", { field: "state" });
      const facts = readFacts(row.oauth);
      const credential = (await openOauthCredential(keySet, row).catch(() => null)) ?? { kind: "oauth" as const, access_token: "" };
      if (!facts?.client_id) throw new ApiError(409, "mcp_oauth.no_client", "The connection has no registered client: authorise again");
      // RFC 9207: a response from another authorization server than the one the operator was sent to is refused, its code unused.
      const mixUp = issuerRefusal(facts, iss);
      if (mixUp) throw new ApiError(422, "mcp_oauth.issuer_mismatch", `${mixUp}: authorise again`, { field: "iss" });
      const tokens = await exchangeCode(facts, credential, { code, verifier: spent.verifier, redirectUri: spent.redirectUri }, oauthFetch(c.env)).catch(
        (error: unknown) => oauthFailure(error, "code"),
      );
      const updated = await storeOauthTokens(db, keySet, row, {
        credential: tokens.credential,
        facts: { ...facts, expires_at: tokens.expiresAt, scope: tokens.scope },
        status: "pending",
      });
      if (!updated) throw notFound("mcp_connection");
      const after = await discoverAfterAuthorisation(c.env, db, keySet, updated);
      return c.json({ connection_id: row.id, status: after.status, last_error: after.lastError, expires_at: tokens.expiresAt });
    },
  );
