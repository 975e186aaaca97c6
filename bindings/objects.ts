/**
 * How the Worker and the objects address the Durable Objects: agents and guilds by their
 * ids. Both sides import this module, so neither imports the other.
 */
import { databaseLocationHint } from "../core/config/location-hint";
import type { Env } from "./env";

/** The agent's Durable Object: one per agent, addressed by its id. */
export function agentObject(env: Env, agentId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentId), databaseLocationHint(env));
}

/** The guild's Durable Object: its chat's single writer, addressed by the guild id. */
export function guildObject(env: Env, guildId: string) {
  return env.GUILD.get(env.GUILD.idFromName(guildId), databaseLocationHint(env));
}

/** A task's Durable Object: the single writer of its runs, addressed by the task id. */
export function taskObject(env: Env, taskId: string) {
  return env.TASK.get(env.TASK.idFromName(taskId), databaseLocationHint(env));
}

/** The organisation's task queue, addressed by the organisation id. */
export function taskQueue(env: Env, organisationId: string) {
  return env.TASK_QUEUE.get(env.TASK_QUEUE.idFromName(organisationId), databaseLocationHint(env));
}

/** The organisation's inbox of GitHub webhook deliveries, addressed by the organisation id. */
export function forgeInbox(env: Env, organisationId: string) {
  return env.FORGE_INBOX.get(env.FORGE_INBOX.idFromName(organisationId), databaseLocationHint(env));
}
