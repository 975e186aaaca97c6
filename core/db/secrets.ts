import { and, eq, or, sql } from "drizzle-orm";
import type { AnyDatabase } from "./client";
import { agents, secretGrants, secrets } from "./schema";

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

/**
 * The agents a secret reaches now (SEC-008): every agent of the organisation when it is
 * organisation-wide, else those granted it and those of the guilds granted it. Called
 * before and after a change, the union is every agent it reaches or reached.
 */
export async function agentsReachedBy(db: AnyDatabase, organisationId: string, secretId: string): Promise<string[]> {
  const rows = await db
    .select({ id: agents.id })
    .from(agents)
    .where(
      and(
        eq(agents.organisationId, organisationId),
        or(
          sql`exists (select 1 from ${secrets} where ${secrets.id} = ${secretId} and ${secrets.organisationId} = ${organisationId} and ${secrets.orgWide})`,
          sql`exists (select 1 from ${secretGrants} where ${secretGrants.secretId} = ${secretId}
            and (${secretGrants.agentId} = ${agents.id} or ${secretGrants.guildId} = ${agents.guildId}))`,
        ),
      ),
    );
  return rows.map((r) => r.id);
}
