import { logEvent } from "../output/log";

/** Cloudflare's location hints for where a new Durable Object is created. */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

let warnedHint: string | undefined;

/**
 * Where new agent and guild objects are created: near the database (`DATABASE_LOCATION_HINT`),
 * since each of their round trips to Postgres would otherwise cross an ocean. A hint places an
 * object only when it is first created. Unset: none; an unknown value is ignored with a warning.
 *
 * @example databaseLocationHint({ DATABASE_LOCATION_HINT: "enam" }) // { locationHint: "enam" }
 */
export function databaseLocationHint(env: { DATABASE_LOCATION_HINT?: string | undefined }): { locationHint?: LocationHint } {
  const hint = env.DATABASE_LOCATION_HINT?.trim();
  if (!hint) return {};
  if ((LOCATION_HINTS as readonly string[]).includes(hint)) return { locationHint: hint as LocationHint };
  if (warnedHint !== hint) {
    warnedHint = hint;
    logEvent("warn", { operation: "config.location_hint", message: `DATABASE_LOCATION_HINT "${hint}" is not one of ${LOCATION_HINTS.join(", ")}; ignored` });
  }
  return {};
}
