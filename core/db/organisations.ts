import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { newToken } from "../auth/tokens";
import { apiTokens, organisations } from "./schema";

/** Any drizzle Postgres database: Neon in the Worker, node-postgres in scripts. */
export type AnyDatabase = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

/**
 * Creates an organisation with one operator token; the token is returned once and
 * only its hash is stored.
 *
 * @example const { organisation_id, token } = await createOrganisation(db, "Acme");
 */
export async function createOrganisation(db: AnyDatabase, name: string) {
  return db.transaction(async (tx) => {
    const [org] = await tx.insert(organisations).values({ name }).returning({ id: organisations.id });
    const { token, hash, prefix } = await newToken();
    await tx.insert(apiTokens).values({ organisationId: org!.id, name: "operator", tokenHash: hash, prefix });
    return { organisation_id: org!.id, token };
  });
}
