import type { ScriptsChangedEvent } from "../core/events/streams";
import type { ScriptChange } from "../core/scripts/types";
import type { Env } from "./env";
import { guildObject } from "./objects";

/**
 * The guild event of a committed catalog write (SCRIPT-040, SSE-005).
 *
 * @example scriptsChangedEvent("a1…", { action: "delete", name: "fetch_prices" }) // { agent_id: "a1…", action: "delete", name: "fetch_prices" }
 */
export function scriptsChangedEvent(agentId: string, change: ScriptChange): ScriptsChangedEvent {
  return change.action === "clear" ? { agent_id: agentId, action: "clear" } : { agent_id: agentId, action: change.action, name: change.name };
}

/**
 * Publishes `agent.scripts.changed` on the stream of the agent's guild, for the consoles
 * watching it. Call it after the write committed; it throws when the guild's object cannot
 * be reached, which the caller logs rather than failing a write that already happened.
 */
export async function publishScriptsChanged(env: Env, guildId: string, agentId: string, change: ScriptChange): Promise<void> {
  await guildObject(env, guildId).agentEvent(guildId, "agent.scripts.changed", scriptsChangedEvent(agentId, change));
}
