import { eq, sql } from "drizzle-orm";
import { newToken } from "../auth/tokens";
import type { AnyDatabase } from "./client";
import { apiTokens, organisations } from "./schema";

/**
 * Creates an organisation with one operator token; the token is returned once and
 * only its hash is stored. `spendCeilingUsd` is the operator's monthly ceiling
 * (core/usage/spend-limit.ts), as a numeric string.
 *
 * @example const { organisation_id, token } = await createOrganisation(db, "Acme");
 */
export async function createOrganisation(db: AnyDatabase, name: string, options: { spendCeilingUsd?: string | null } = {}) {
  return db.transaction(async (tx) => {
    const [org] = await tx
      .insert(organisations)
      .values({ name, spendCeilingUsd: options.spendCeilingUsd ?? null })
      .returning({ id: organisations.id });
    const { token, hash, prefix } = await newToken();
    await tx.insert(apiTokens).values({ organisationId: org!.id, name: "operator", tokenHash: hash, prefix });
    return { organisation_id: org!.id, token };
  });
}

/**
 * Sets (or with null lifts) the operator's monthly spend ceiling of an organisation.
 * Only the operator's tools call this; no API route does. Returns false when no
 * organisation has that id.
 *
 * @example await setSpendCeiling(db, orgId, "100.000000")
 */
export async function setSpendCeiling(db: AnyDatabase, organisationId: string, spendCeilingUsd: string | null): Promise<boolean> {
  const updated = await db
    .update(organisations)
    .set({ spendCeilingUsd, updatedAt: sql`now()` })
    .where(eq(organisations.id, organisationId))
    .returning({ id: organisations.id });
  return updated.length > 0;
}
