import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/**
 * The local stack's SECRETS_KEK: made once per state folder and reused, so secrets stored
 * by one `npm start` still decrypt in the next. Production sets its own with
 * `wrangler secret put SECRETS_KEK`.
 *
 * @example ensureSecretsKek(".local/secrets-kek") // "v1:Zm9v..."
 */
export function ensureSecretsKek(file: string): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const kek = `v1:${randomBytes(32).toString("base64")}`;
  writeFileSync(file, `${kek}\n`, { mode: 0o600 });
  return kek;
}
