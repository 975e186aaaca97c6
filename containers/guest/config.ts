/**
 * The guest's own settings, from a file and never from the environment: the box's
 * environment is the tenant's (its secrets, SEC-005), so a secret named like a setting
 * (GUEST_HOME, GUEST_MAX_ARCHIVE_BYTES) must not reach the guest. The platform passes the
 * settings in one GUEST_CONFIG variable; the entrypoint writes it to a root-only file
 * outside the home (containers/bin/sandbox-entrypoint), drops every GUEST_* variable, and
 * starts the guest with the file's path. The guest reads the file once and removes it.
 *
 * The file is a JSON object of strings named as the settings are documented, e.g.
 *   {"GUEST_TOKEN": "…", "GUEST_HOME_SAVE_URL": "http://…", "GUEST_MAX_FILE_BYTES": "1048576"}
 */
import { readFileSync, rmSync } from "node:fs";

/** Setting name to value; absent means the default. */
export type GuestSettings = Readonly<Record<string, string>>;

/** What the file must hold: a JSON object whose values are all strings. */
export function parseGuestSettings(text: string): GuestSettings | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "is not JSON";
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return "must hold a JSON object";
  for (const [name, value] of Object.entries(parsed)) {
    if (!name.startsWith("GUEST_")) return `names ${JSON.stringify(name)}, which is not a guest setting (GUEST_*)`;
    if (typeof value !== "string") return `${name} must be a string`;
  }
  return parsed as GuestSettings;
}

/**
 * Reads the settings file and removes it, so no command in the box (they run as root)
 * finds the token there later.
 *
 * @example readGuestSettings("/run/guest/config.json") // { GUEST_TOKEN: "…" } or an error message
 */
export function readGuestSettings(path: string): GuestSettings | string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    return `cannot read ${path}: ${(error as Error).message}`;
  }
  rmSync(path, { force: true });
  const settings = parseGuestSettings(text);
  return typeof settings === "string" ? `${path} ${settings}` : settings;
}
