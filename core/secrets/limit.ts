/**
 * How many secrets one organisation may hold (OP-SEC-1). Each is listed, resolved at every
 * generation start and injected into boxes; without a cap, a tenant (or its agents through
 * secret_store) could grow those without bound.
 */
import { count, eq, sql } from "drizzle-orm";
import type { AnyDatabase } from "../db/client";
import { organisations, secrets } from "../db/schema";

export const MAX_SECRETS_PER_ORGANISATION = 200;

/** A create refused because the organisation already has as many secrets as it may. */
export class SecretLimitReached extends Error {
  override name = "SecretLimitReached";
  readonly code = "secret.limit_reached";
  constructor(readonly limit: number) {
    super(`An organisation may have at most ${limit} secrets; delete one or change an existing one instead of creating another`);
  }
}

/**
 * Inside a transaction about to create a secret: locks the organisation's row, so
 * simultaneous creates count one after another, and throws SecretLimitReached at the cap.
 * An organisation one short of the cap therefore gets exactly one more.
 */
export async function reserveSecretSlot(tx: AnyDatabase, organisationId: string, limit = MAX_SECRETS_PER_ORGANISATION): Promise<void> {
  // NO KEY UPDATE: serialises creates without blocking rows that reference the organisation.
  await tx.execute(sql`select 1 from ${organisations} where ${organisations.id} = ${organisationId} for no key update`);
  const [existing] = await tx.select({ n: count() }).from(secrets).where(eq(secrets.organisationId, organisationId));
  if ((existing?.n ?? 0) >= limit) throw new SecretLimitReached(limit);
}
