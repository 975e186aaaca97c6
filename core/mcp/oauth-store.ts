import { and, eq, lt } from "drizzle-orm";
import type { AnyDatabase } from "../db/client";
import type { McpConnectionRow } from "../db/mcp";
import { mcpConnections, mcpOauthStates } from "../db/schema";
import { type KeySet, openSecret, type SealedValue, sealSecret } from "../secrets/crypto";
import { credentialBinding, verifierBinding } from "./credentials";
import type { OAuthCredential, OAuthFacts } from "./oauth";

/**
 * The database side of MCP OAuth: authorisations in flight (their PKCE verifier sealed, each
 * state spent once by a DELETE that only one request can win, on any Worker instance), and a
 * connection's sealed tokens and non-secret facts.
 */

export type { McpConnectionRow };

/** Keeps an authorisation in flight; expired ones are cleared on the way. */
export async function saveOauthState(
  db: AnyDatabase,
  keys: KeySet,
  input: { organisationId: string; connectionId: string; nonce: string; verifier: string; redirectUri: string; expiresAt: Date },
  now = new Date(),
): Promise<void> {
  await db.delete(mcpOauthStates).where(lt(mcpOauthStates.expiresAt, now));
  const sealed = await sealSecret(keys, verifierBinding(input.organisationId, input.nonce), input.verifier);
  await db.insert(mcpOauthStates).values({
    nonce: input.nonce,
    connectionId: input.connectionId,
    verifierCiphertext: sealed.ciphertext,
    verifierIv: sealed.iv,
    verifierKeyVersion: sealed.keyVersion,
    redirectUri: input.redirectUri,
    expiresAt: input.expiresAt,
  });
}

/**
 * Spends the state: its verifier and redirect URI for the one request whose DELETE removes the
 * row, null for every other (a replay, a second callback at the same moment, an expired one).
 */
export async function spendOauthState(
  db: AnyDatabase,
  keys: KeySet,
  input: { organisationId: string; connectionId: string; nonce: string },
  now = new Date(),
): Promise<{ verifier: string; redirectUri: string } | null> {
  const [row] = await db
    .delete(mcpOauthStates)
    .where(and(eq(mcpOauthStates.nonce, input.nonce), eq(mcpOauthStates.connectionId, input.connectionId)))
    .returning();
  if (!row || row.expiresAt < now) return null;
  const sealed: SealedValue = { ciphertext: row.verifierCiphertext, iv: row.verifierIv, keyVersion: row.verifierKeyVersion };
  return { verifier: await openSecret(keys, verifierBinding(input.organisationId, input.nonce), sealed), redirectUri: row.redirectUri };
}

/** The connection's OAuth credential, or null when it has none (or another kind). */
export async function openOauthCredential(keys: KeySet, row: McpConnectionRow): Promise<OAuthCredential | null> {
  if (!row.credentialCiphertext || !row.credentialIv || !row.credentialKeyVersion) return null;
  const plain = await openSecret(keys, credentialBinding(row.organisationId, row.id), {
    ciphertext: row.credentialCiphertext,
    iv: row.credentialIv,
    keyVersion: row.credentialKeyVersion,
  });
  const value = JSON.parse(plain) as { kind?: string };
  return value.kind === "oauth" ? (value as OAuthCredential) : null;
}

/** The columns of a credential sealed for the row. */
export async function sealedCredential(keys: KeySet, row: Pick<McpConnectionRow, "organisationId" | "id">, credential: OAuthCredential) {
  const sealed = await sealSecret(keys, credentialBinding(row.organisationId, row.id), JSON.stringify(credential));
  return { credentialCiphertext: sealed.ciphertext, credentialIv: sealed.iv, credentialKeyVersion: sealed.keyVersion };
}

/** Stores new tokens and facts (and a status, when given); null when the row is gone. */
export async function storeOauthTokens(
  db: AnyDatabase,
  keys: KeySet,
  row: McpConnectionRow,
  input: { credential: OAuthCredential; facts: OAuthFacts; status?: McpConnectionRow["status"] },
): Promise<McpConnectionRow | null> {
  const mine = and(eq(mcpConnections.id, row.id), eq(mcpConnections.organisationId, row.organisationId));
  const [updated] = await db
    .update(mcpConnections)
    .set({
      ...(await sealedCredential(keys, row, input.credential)),
      oauth: input.facts,
      ...(input.status ? { status: input.status, lastError: input.status === "needs_auth" ? row.lastError : null } : {}),
      updatedAt: new Date(),
    })
    .where(mine)
    .returning();
  return updated ?? null;
}

/** The connection needs the operator to authorise it again, with why. */
export async function markNeedsAuth(db: AnyDatabase, row: Pick<McpConnectionRow, "id" | "organisationId">, reason: string): Promise<void> {
  await db
    .update(mcpConnections)
    .set({ status: "needs_auth", lastError: reason, updatedAt: new Date() })
    .where(and(eq(mcpConnections.id, row.id), eq(mcpConnections.organisationId, row.organisationId)));
}
