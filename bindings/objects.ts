/**
 * How the Worker and the objects address the Durable Objects: agents and guilds by their
 * ids. Both sides import this module, so neither imports the other.
 */
import { logEvent } from "../core/output/log";
import type { Env } from "./env";

/** Cloudflare's location hints for where a new Durable Object is created. */
const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
let warnedHint: string | undefined;

/**
 * Where new agent and guild objects are created: near the database (`DATABASE_LOCATION_HINT`),
 * since each of their round trips to Postgres would otherwise cross an ocean. A hint places an
 * object only when it is first created. Unset: none; an unknown value is ignored with a warning.
 *
 * @example databaseLocationHint({ DATABASE_LOCATION_HINT: "enam" }) // { locationHint: "enam" }
 */
export function databaseLocationHint(env: Pick<Env, "DATABASE_LOCATION_HINT">): { locationHint?: DurableObjectLocationHint } {
  const hint = env.DATABASE_LOCATION_HINT?.trim();
  if (!hint) return {};
  if ((LOCATION_HINTS as readonly string[]).includes(hint)) return { locationHint: hint as DurableObjectLocationHint };
  if (warnedHint !== hint) {
    warnedHint = hint;
    logEvent("warn", { operation: "config.location_hint", message: `DATABASE_LOCATION_HINT "${hint}" is not one of ${LOCATION_HINTS.join(", ")}; ignored` });
  }
  return {};
}

/** The agent's Durable Object: one per agent, addressed by its id. */
export function agentObject(env: Env, agentId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentId), databaseLocationHint(env));
}

/** The guild's Durable Object: its chat's single writer, addressed by the guild id. */
export function guildObject(env: Env, guildId: string) {
  return env.GUILD.get(env.GUILD.idFromName(guildId), databaseLocationHint(env));
}
