/**
 * The GitHub App's webhook signature (`X-Hub-Signature-256: sha256=<hex>`): HMAC-SHA256 of the
 * exact body bytes under the App's webhook secret. Checked with WebCrypto's `verify`, which
 * compares in constant time, so a forger learns nothing from how long a refusal takes. Pure:
 * runs in Node and in workerd.
 *
 * @example await verifyWebhookSignature(secret, bodyBytes, request.headers.get("x-hub-signature-256")) // true | false
 */

const HEADER = /^sha256=([0-9a-fA-F]{64})$/;

/** True only when `header` is `sha256=<64 hex>` and is the body's HMAC under `secret`; anything malformed is false. */
export async function verifyWebhookSignature(secret: string, body: Uint8Array, header: string | null | undefined): Promise<boolean> {
  if (!secret || !header) return false;
  const match = HEADER.exec(header.trim());
  if (!match) return false;
  const key = await hmacKey(secret);
  return crypto.subtle.verify("HMAC", key, hexBytes(match[1]!), body);
}

/**
 * The header GitHub would send for `body`: what the local forge and the benchmarks sign with.
 *
 * @example await signWebhook("s3cret", new TextEncoder().encode('{"zen":"…"}')) // "sha256=…"
 */
export async function signWebhook(secret: string, body: Uint8Array | string): Promise<string> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), bytes));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** SHA-256 of the body as lowercase hex: a delivery's identity beside its delivery id. */
export async function bodySha256(body: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The last secret's key, imported once (non-extractable): every delivery is checked with the same one. */
let lastKey: { secret: string; key: ReturnType<typeof importKey> } | null = null;

function hmacKey(secret: string) {
  if (lastKey?.secret !== secret) lastKey = { secret, key: importKey(secret) };
  return lastKey.key;
}

function importKey(secret: string) {
  return crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
