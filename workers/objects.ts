/** How the Worker and the objects address the Durable Objects: agents and guilds by their ids. */
import type { Env } from "./env";
import { ApiError } from "./errors";

/** The agent's Durable Object: one per agent, addressed by its id. */
export function agentObject(env: Env, agentId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentId));
}

/** The guild's Durable Object: its chat's single writer, addressed by the guild id. */
export function guildObject(env: Env, guildId: string) {
  return env.GUILD.get(env.GUILD.idFromName(guildId));
}

/**
 * Clears the objects of agents about to be deleted, so none of their deadlines fires
 * afterwards. 409 `agent.busy` (and nothing deleted) while one of them generates.
 */
export async function forgetAgents(env: Env, agentIds: string[]): Promise<void> {
  const results = await Promise.all(agentIds.map((id) => agentObject(env, id).forget()));
  const busy = results.find((r) => !r.forgotten);
  if (busy) {
    throw new ApiError(409, "agent.busy", "An agent is generating; cancel the generation first", { run_id: busy.busyRunId });
  }
}
