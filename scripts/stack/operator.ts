import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import { hashToken } from "../../core/auth/tokens";
import { createOrganisation } from "../../core/db/organisations";
import * as schema from "../../core/db/schema";
import { apiTokens } from "../../core/db/schema";

/**
 * Runs `work` with a drizzle database over node-postgres (the Node-side tools use
 * plain TCP; the Worker uses the Neon driver).
 */
export async function withDatabase<T>(url: string, work: (db: NodePgDatabase<typeof schema>) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(drizzle(client, { schema }));
  } finally {
    await client.end();
  }
}

/**
 * The local operator's token and its organisation: the one saved in `tokenFile` while the
 * database still knows it, otherwise a new organisation and token (first start, or a wiped database).
 */
export async function ensureOperatorToken(databaseUrl: string, tokenFile: string): Promise<{ token: string; organisationId: string; created: boolean }> {
  return withDatabase(databaseUrl, async (db) => {
    if (existsSync(tokenFile)) {
      const token = readFileSync(tokenFile, "utf8").trim();
      const [found] = await db
        .select({ organisationId: apiTokens.organisationId })
        .from(apiTokens)
        .where(eq(apiTokens.tokenHash, await hashToken(token)))
        .limit(1);
      if (found) return { token, organisationId: found.organisationId, created: false };
    }
    const { token, organisation_id } = await createOrganisation(db, "Local organisation");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    return { token, organisationId: organisation_id, created: true };
  });
}
