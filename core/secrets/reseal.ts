/**
 * Re-sealing every stored value under the current key (OP-SEC-4), so an older key can be
 * dropped from SECRETS_KEK: `npm run secrets:rotate` (scripts/secrets-rotate.ts) runs it.
 */
import { and, asc, eq, gt } from "drizzle-orm";
import type { AnyDatabase } from "../db/client";
import { secrets } from "../db/schema";
import { type KeySet, openSecret, SecretDecryptError, sealedUnderCurrent, sealSecret } from "./crypto";

/** A value that stayed under its old key: which row and why, never the value. */
export interface ResealFailure {
  id: string;
  organisationId: string;
  name: string;
  keyVersion: string;
  reason: string;
}

export interface ResealReport {
  /** Values now sealed under the current key by this pass. */
  resealed: number;
  /** Values that already were. */
  current: number;
  /** Values rewritten by someone else between the read and the write (sealed anew by that writer). */
  changedMeanwhile: number;
  failed: ResealFailure[];
}

/**
 * Opens every value not sealed under `keys.current` and seals it again under it, one row
 * at a time. A row written by someone else meanwhile is left to that writer (the update is
 * guarded by the ciphertext read), and a value that does not open is reported and left as
 * it is: nothing is half-written, and running it again resumes.
 *
 * @example await resealSecrets(db, await parseKeySet("v1:…,v2:…")) // { resealed: 12, current: 3, changedMeanwhile: 0, failed: [] }
 */
export async function resealSecrets(db: AnyDatabase, keys: KeySet, batch = 200): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, changedMeanwhile: 0, failed: [] };
  let after: string | undefined;
  for (;;) {
    const rows = await db
      .select({
        id: secrets.id,
        organisationId: secrets.organisationId,
        name: secrets.name,
        ciphertext: secrets.ciphertext,
        iv: secrets.iv,
        keyVersion: secrets.keyVersion,
      })
      .from(secrets)
      .where(after === undefined ? undefined : gt(secrets.id, after))
      .orderBy(asc(secrets.id))
      .limit(batch);
    if (rows.length === 0) return report;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      if (sealedUnderCurrent(keys, row.keyVersion)) {
        report.current++;
        continue;
      }
      const binding = { organisationId: row.organisationId, secretId: row.id };
      let value: string;
      try {
        value = await openSecret(keys, binding, row);
      } catch (error) {
        if (!(error instanceof SecretDecryptError)) throw error;
        const reason = error.reason === "key_missing" ? `key version ${row.keyVersion} is not configured` : "the stored value does not verify";
        report.failed.push({ id: row.id, organisationId: row.organisationId, name: row.name, keyVersion: row.keyVersion, reason });
        continue;
      }
      const sealed = await sealSecret(keys, binding, value);
      const updated = await db
        .update(secrets)
        .set(sealed)
        .where(and(eq(secrets.id, row.id), eq(secrets.ciphertext, row.ciphertext)))
        .returning({ id: secrets.id });
      if (updated.length === 1) report.resealed++;
      else report.changedMeanwhile++;
    }
  }
}
