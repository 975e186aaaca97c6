/**
 * Keyed fingerprints of a sandbox's environment (SBX-010, SBX-020, SEC-015, OP-SBX-3/4).
 * The sandbox metadata keeps these, never a value: the fingerprint changes when any
 * variable's name or value changes, and without the key nobody can test a guess against it.
 * WebCrypto only, so the same code runs in the Worker and in Node.
 */

/**
 * The key when the Worker has no SANDBOX_FINGERPRINT_KEY secret (the local stack, tests).
 * Deployments set their own: with this public default a stored fingerprint could be
 * checked against guessed values.
 */
export const LOCAL_FINGERPRINT_KEY = "guilds-local-sandbox-fingerprint-key";

/** Container labels (and so fingerprints) are at most 63 characters. */
export const FINGERPRINT_LENGTH = 63;

/**
 * Canonical JSON of a name → value map: names sorted by code unit, no whitespace, so
 * the same environment always gives the same bytes.
 *
 * @example canonicalEnvironment({ B: "2", A: "1" }) // '{"A":"1","B":"2"}'
 */
export function canonicalEnvironment(environment: Readonly<Record<string, string>>): string {
  const sorted = Object.keys(environment).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(sorted.map((name) => [name, environment[name]!])));
}

/**
 * HMAC-SHA256 over the canonical JSON of the environment, lowercase hex, first 63
 * characters (OP-SBX-3).
 *
 * @example await environmentFingerprint({ GITHUB_TOKEN: "ghp_…" }, key) // "3f0c…" (63 hex characters)
 */
export async function environmentFingerprint(environment: Readonly<Record<string, string>>, key: string | undefined): Promise<string> {
  const secret = new TextEncoder().encode(key || LOCAL_FINGERPRINT_KEY);
  const hmacKey = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(canonicalEnvironment(environment)));
  return hex(mac).slice(0, FINGERPRINT_LENGTH);
}

/**
 * The label-safe key of a secret id (OP-SBX-4): `s-` and the first 61 characters of
 * lowercase hex SHA-256 of the id; 63 characters, starting with a letter.
 *
 * @example await secretLabelKey("0b7e…") // "s-9a1f…"
 */
export async function secretLabelKey(secretId: string): Promise<string> {
  return `s-${(await sha256Hex(secretId)).slice(0, FINGERPRINT_LENGTH - 2)}`;
}

/**
 * The fingerprint of an image reference (SBX-011, SBX-020): 16 hex characters of its
 * SHA-256, enough to tell two references apart.
 */
export async function imageFingerprint(reference: string): Promise<string> {
  return (await sha256Hex(reference)).slice(0, 16);
}

async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}
