import { and, asc, eq, inArray } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { secretGrants, secrets } from "./schema";

export type SecretRow = typeof secrets.$inferSelect;
export type SecretGrantRow = typeof secretGrants.$inferSelect;

/** The organisation's secret with this id, or undefined (also for another organisation's). */
export async function findSecretRow(db: AnyDatabase, organisationId: string, id: string): Promise<SecretRow | undefined> {
  const [row] = await db
    .select()
    .from(secrets)
    .where(and(eq(secrets.id, id), eq(secrets.organisationId, organisationId)))
    .limit(1);
  return row;
}

/** The grants of these secrets, grouped by secret id, oldest first. */
export async function grantsOf(db: AnyDatabase, secretIds: string[]): Promise<Map<string, SecretGrantRow[]>> {
  const byId = new Map<string, SecretGrantRow[]>(secretIds.map((id) => [id, []]));
  if (secretIds.length === 0) return byId;
  const rows = await db.select().from(secretGrants).where(inArray(secretGrants.secretId, secretIds)).orderBy(asc(secretGrants.createdAt), asc(secretGrants.id));
  for (const row of rows) byId.get(row.secretId)!.push(row);
  return byId;
}

/** A secret's stored (sealed) value with the name it reaches the agent under. */
export interface SealedSecretRow {
  id: string;
  name: string;
  ciphertext: string;
  iv: string;
  keyVersion: string;
}

/** The sealed values of these secrets of the organisation; a deleted one is simply absent. */
export async function readSealedSecrets(db: AnyDatabase, organisationId: string, ids: string[]): Promise<SealedSecretRow[]> {
  if (ids.length === 0) return [];
  return db
    .select({ id: secrets.id, name: secrets.name, ciphertext: secrets.ciphertext, iv: secrets.iv, keyVersion: secrets.keyVersion })
    .from(secrets)
    .where(and(eq(secrets.organisationId, organisationId), inArray(secrets.id, ids)));
}
