/**
 * Re-sealing the other values sealed with the secrets' key (OP-SEC-4): MCP connections'
 * credentials and the PKCE verifiers of OAuth authorisations in flight. Same rules as
 * resealSecrets: row by row, guarded by the ciphertext read, failures reported by id.
 */
import { and, asc, eq, gt, isNotNull } from "drizzle-orm";
import type { AnyDatabase } from "../db/client";
import { mcpConnections, mcpOauthStates } from "../db/schema";
import { type KeySet, openSecret, type SealedValue, type SecretBinding, SecretDecryptError, sealedUnderCurrent, sealSecret } from "../secrets/crypto";
import type { ResealReport } from "../secrets/reseal";
import { credentialBinding, verifierBinding } from "./credentials";

interface SealedRow {
  id: string;
  organisationId: string;
  name: string;
  sealed: SealedValue;
}

/** The shared loop: open what is not under the current key, seal it again, write if unchanged. */
async function resealRows(
  keys: KeySet,
  page: (after: string | undefined) => Promise<SealedRow[]>,
  binding: (row: SealedRow) => SecretBinding,
  write: (row: SealedRow, sealed: SealedValue) => Promise<boolean>,
): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, changedMeanwhile: 0, failed: [] };
  let after: string | undefined;
  for (;;) {
    const rows = await page(after);
    if (rows.length === 0) return report;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      if (sealedUnderCurrent(keys, row.sealed.keyVersion)) {
        report.current++;
        continue;
      }
      let value: string;
      try {
        value = await openSecret(keys, binding(row), row.sealed);
      } catch (error) {
        if (!(error instanceof SecretDecryptError)) throw error;
        const reason = error.reason === "key_missing" ? `key version ${row.sealed.keyVersion} is not configured` : "the stored value does not verify";
        report.failed.push({ id: row.id, organisationId: row.organisationId, name: row.name, keyVersion: row.sealed.keyVersion, reason });
        continue;
      }
      if (await write(row, await sealSecret(keys, binding(row), value))) report.resealed++;
      else report.changedMeanwhile++;
    }
  }
}

/** MCP connections' sealed credentials (bearer tokens, OAuth tokens and client secrets). */
export async function resealMcpCredentials(db: AnyDatabase, keys: KeySet, batch = 200): Promise<ResealReport> {
  return resealRows(
    keys,
    async (after) => {
      const rows = await db
        .select({
          id: mcpConnections.id,
          organisationId: mcpConnections.organisationId,
          slug: mcpConnections.slug,
          ciphertext: mcpConnections.credentialCiphertext,
          iv: mcpConnections.credentialIv,
          keyVersion: mcpConnections.credentialKeyVersion,
        })
        .from(mcpConnections)
        .where(and(isNotNull(mcpConnections.credentialCiphertext), after === undefined ? undefined : gt(mcpConnections.id, after)))
        .orderBy(asc(mcpConnections.id))
        .limit(batch);
      return rows.map((r) => ({
        id: r.id,
        organisationId: r.organisationId,
        name: `MCP connection ${r.slug}`,
        sealed: { ciphertext: r.ciphertext ?? "", iv: r.iv ?? "", keyVersion: r.keyVersion ?? "" },
      }));
    },
    (row) => credentialBinding(row.organisationId, row.id),
    async (row, sealed) => {
      const updated = await db
        .update(mcpConnections)
        .set({ credentialCiphertext: sealed.ciphertext, credentialIv: sealed.iv, credentialKeyVersion: sealed.keyVersion })
        .where(and(eq(mcpConnections.id, row.id), eq(mcpConnections.credentialCiphertext, row.sealed.ciphertext)))
        .returning({ id: mcpConnections.id });
      return updated.length === 1;
    },
  );
}

/** The PKCE verifiers of OAuth authorisations not yet called back. */
export async function resealOauthVerifiers(db: AnyDatabase, keys: KeySet, batch = 200): Promise<ResealReport> {
  return resealRows(
    keys,
    async (after) => {
      const rows = await db
        .select({
          nonce: mcpOauthStates.nonce,
          organisationId: mcpConnections.organisationId,
          slug: mcpConnections.slug,
          ciphertext: mcpOauthStates.verifierCiphertext,
          iv: mcpOauthStates.verifierIv,
          keyVersion: mcpOauthStates.verifierKeyVersion,
        })
        .from(mcpOauthStates)
        .innerJoin(mcpConnections, eq(mcpConnections.id, mcpOauthStates.connectionId))
        .where(after === undefined ? undefined : gt(mcpOauthStates.nonce, after))
        .orderBy(asc(mcpOauthStates.nonce))
        .limit(batch);
      return rows.map((r) => ({
        id: r.nonce,
        organisationId: r.organisationId,
        name: `OAuth state of MCP connection ${r.slug}`,
        sealed: { ciphertext: r.ciphertext, iv: r.iv, keyVersion: r.keyVersion },
      }));
    },
    (row) => verifierBinding(row.organisationId, row.id),
    async (row, sealed) => {
      const updated = await db
        .update(mcpOauthStates)
        .set({ verifierCiphertext: sealed.ciphertext, verifierIv: sealed.iv, verifierKeyVersion: sealed.keyVersion })
        .where(and(eq(mcpOauthStates.nonce, row.id), eq(mcpOauthStates.verifierCiphertext, row.sealed.ciphertext)))
        .returning({ nonce: mcpOauthStates.nonce });
      return updated.length === 1;
    },
  );
}
