import { and, eq } from "drizzle-orm";
import type { AnyDatabase } from "../../core/db/client";
import { agents, guilds } from "../../core/db/schema";
import { notFound } from "../http/errors";

/** What a grant names: one guild or one agent (the body's schema allows exactly one). */
export type GrantTarget = { guildId: string; agentId?: undefined } | { agentId: string; guildId?: undefined };

/**
 * The guild or agent a grant body names, once it is known to be the organisation's: a
 * secret's and a connection's grants reach only their own tenant.
 *
 * @example await grantTarget(db, orgId, { agent_id }) // { agentId } or 404 agent.not_found
 */
export async function grantTarget(
  db: AnyDatabase,
  organisationId: string,
  body: { guild_id?: string | null | undefined; agent_id?: string | null | undefined },
): Promise<GrantTarget> {
  const { guild_id: guildId, agent_id: agentId } = body;
  const target = guildId
    ? await db
        .select({ id: guilds.id })
        .from(guilds)
        .where(and(eq(guilds.id, guildId), eq(guilds.organisationId, organisationId)))
    : await db
        .select({ id: agents.id })
        .from(agents)
        .where(and(eq(agents.id, agentId!), eq(agents.organisationId, organisationId)));
  if (target.length === 0) throw notFound(guildId ? "guild" : "agent");
  return guildId ? { guildId } : { agentId: agentId! };
}
