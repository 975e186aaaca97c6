import { markNeedsAuth, type McpConnectionRow, openOauthCredential, reloadConnection, storeOauthTokens } from "./oauth-store";
import type { AnyDatabase } from "../db/organisations";
import type { KeySet } from "../secrets/crypto";
import { readFacts, refreshDue } from "./oauth";
import { OAuthError, type OAuthFetch, refreshTokens } from "./oauth-flow";

/**
 * The access token of an OAuth connection, for the MCP client and for runs: the stored one
 * while more than a minute is left, otherwise a refreshed one (stored before it is used). A
 * refresh the server refuses marks the connection 'needs_auth' and throws; the operator then
 * authorises again. Two refreshes at once (two runs) store only one result: the loser reads
 * the winner's token rather than spending a rotated refresh token a second time.
 *
 * @example
 *   const token = await accessToken(row, { db, keys, fetch: egressFetch(allow) });
 *   client.connect({ headers: { authorization: `Bearer ${token}` } });
 */
export interface AccessDeps {
  db: AnyDatabase;
  keys: KeySet;
  fetch: OAuthFetch;
  now?: () => number;
}

export async function accessToken(conn: McpConnectionRow, deps: AccessDeps): Promise<string> {
  const now = deps.now ?? Date.now;
  const facts = readFacts(conn.oauth);
  const credential = await openOauthCredential(deps.keys, conn);
  if (!facts || !credential?.access_token) throw new OAuthError("refused", "The connection has not been authorised: authorise it");
  if (!refreshDue(facts.expires_at, now())) return credential.access_token;
  let tokens: Awaited<ReturnType<typeof refreshTokens>>;
  try {
    tokens = await refreshTokens(facts, credential, deps.fetch, now());
  } catch (error) {
    if (error instanceof OAuthError && error.kind === "refused") {
      // Another refresh may have rotated the refresh token first: its token is good.
      const fresh = await reloadConnection(deps.db, conn);
      if (fresh && fresh.credentialCiphertext !== conn.credentialCiphertext) return accessToken(fresh, { ...deps, now });
      await markNeedsAuth(deps.db, conn, error.message);
    }
    throw error;
  }
  const stored = await storeOauthTokens(deps.db, deps.keys, conn, {
    credential: tokens.credential,
    facts: { ...facts, expires_at: tokens.expiresAt, scope: tokens.scope },
    ifCiphertext: conn.credentialCiphertext,
  });
  if (stored) return tokens.credential.access_token;
  const fresh = await reloadConnection(deps.db, conn);
  if (!fresh) throw new OAuthError("refused", "The connection was deleted");
  return accessToken(fresh, { ...deps, now });
}
