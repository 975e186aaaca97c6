import { and, eq } from "drizzle-orm";
import type { AnyDatabase } from "../db/client";
import { mcpConnections } from "../db/schema";
import type { KeySet } from "../secrets/crypto";
import type { McpAuth } from "./client";
import { MissingCredential } from "./endpoint";
import { type OAuthCredential, type OAuthFacts, readFacts, refreshDue } from "./oauth";
import { OAuthError, type OAuthFetch, refreshTokens } from "./oauth-flow";
import { type McpConnectionRow, markNeedsAuth, openOauthCredential, storeOauthTokens } from "./oauth-store";

/**
 * The access token of an OAuth connection, for the MCP client and for runs: the stored one
 * while more than a minute is left, otherwise a refreshed one (stored before it is used). A
 * refresh the server refuses marks the connection 'needs_auth' and throws; the operator then
 * authorises again.
 *
 * Servers may rotate refresh tokens, so two refreshes of one connection (two runs, two
 * Worker instances) must not both spend the same one: the refresh happens under the row's
 * lock, and whoever comes second finds the new token and uses it.
 *
 * @example
 *   const token = await accessToken(row, { db, keys, fetch: egressFetch(allow) });
 */
export interface AccessDeps {
  db: AnyDatabase;
  keys: KeySet;
  fetch: OAuthFetch;
  now?: () => number;
}

async function usable(keys: KeySet, row: McpConnectionRow): Promise<{ facts: OAuthFacts; credential: OAuthCredential }> {
  const facts = readFacts(row.oauth);
  const credential = await openOauthCredential(keys, row);
  if (!facts || !credential?.access_token) throw new OAuthError("refused", "The connection has not been authorised: authorise it");
  return { facts, credential };
}

export async function accessToken(conn: McpConnectionRow, deps: AccessDeps): Promise<string> {
  const now = deps.now ?? Date.now;
  const stored = await usable(deps.keys, conn);
  if (!refreshDue(stored.facts.expires_at, now())) return stored.credential.access_token;
  type Outcome = { token: string } | { refused: OAuthError };
  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const [row] = await tx
      .select()
      .from(mcpConnections)
      .where(and(eq(mcpConnections.id, conn.id), eq(mcpConnections.organisationId, conn.organisationId)))
      .for("update");
    if (!row) return { refused: new OAuthError("refused", "The connection was deleted") };
    const { facts, credential } = await usable(deps.keys, row);
    // Refreshed by another caller while this one waited for the lock.
    if (!refreshDue(facts.expires_at, now())) return { token: credential.access_token };
    try {
      const tokens = await refreshTokens(facts, credential, deps.fetch, now());
      await storeOauthTokens(tx as unknown as AnyDatabase, deps.keys, row, {
        credential: tokens.credential,
        facts: { ...facts, expires_at: tokens.expiresAt, scope: tokens.scope },
      });
      return { token: tokens.credential.access_token };
    } catch (error) {
      if (error instanceof OAuthError && error.kind === "refused") return { refused: error };
      throw error;
    }
  });
  if ("refused" in outcome) {
    await markNeedsAuth(deps.db, conn, outcome.refused.message);
    throw outcome.refused;
  }
  return outcome.token;
}

/** The server refused the refresh, or the connection was never authorised: its status is needs_auth. */
export class OAuthNotAuthorised extends MissingCredential {
  constructor(message: string) {
    super("oauth");
    (this as Error).message = message;
  }
}

/**
 * How an OAuth connection's MCP requests authenticate (core/mcp/refresh.ts `oauthAuth`): a
 * token from accessToken, refreshed when due. A refused refresh is a missing credential
 * (the connection needs authorising again); a token endpoint that cannot be reached fails the
 * connection's requests as an unreachable server would.
 */
export function oauthAuth(deps: AccessDeps): (connection: { id: string; organisationId: string }) => Promise<McpAuth> {
  return async (connection) => {
    try {
      // The row as it is now: another request may have rotated the tokens since the caller read it.
      const [row] = await deps.db
        .select()
        .from(mcpConnections)
        .where(and(eq(mcpConnections.id, connection.id), eq(mcpConnections.organisationId, connection.organisationId)));
      if (!row) throw new OAuthError("refused", "The connection was deleted");
      const token = await accessToken(row, deps);
      return { kind: "oauth", accessToken: async () => token };
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      if (error.kind === "refused") throw new OAuthNotAuthorised(error.message);
      const { McpError } = await import("./client");
      const failure = new McpError(error.kind === "egress" ? "mcp.url_refused" : "mcp.unreachable", error.message);
      return { kind: "oauth", accessToken: () => Promise.reject(failure) };
    }
  };
}
