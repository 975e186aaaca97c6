import { and, eq, or, sql } from "drizzle-orm";
import type { AnyDatabase } from "./organisations";
import { secretGrants, secrets } from "./schema";

export interface SecretRef {
  id: string;
  name: string;
  description: string;
}

/**
 * The secrets that reach an agent (SEC-001): organisation-wide ones, those granted to
 * its guild and those granted to it; by id, name and description only, in name order.
 * Values stay encrypted here; the sandbox receives them when it is created.
 *
 * @example await resolveSecrets(db, agent) // [{ id, name: "GITHUB_TOKEN", description: "read-only" }]
 */
export async function resolveSecrets(db: AnyDatabase, agent: { id: string; guildId: string; organisationId: string }): Promise<SecretRef[]> {
  const granted = sql`exists (select 1 from ${secretGrants} where ${secretGrants.secretId} = ${secrets.id}
    and (${secretGrants.guildId} = ${agent.guildId} or ${secretGrants.agentId} = ${agent.id}))`;
  return db
    .select({ id: secrets.id, name: secrets.name, description: secrets.description })
    .from(secrets)
    .where(and(eq(secrets.organisationId, agent.organisationId), or(eq(secrets.orgWide, true), granted)))
    .orderBy(secrets.name);
}
