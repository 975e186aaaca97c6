/**
 * What the platform's signed strings share (view tickets, GitHub claim states, API tokens, the
 * App JWT): HMAC keys derived from one Worker secret under a label of their own, and base64url.
 * WebCrypto only, so it runs in workerd and in Node alike.
 *
 * @example
 *   const key = await derivedHmacKey(env.SECRETS_KEK, "guilds sandbox view ticket v1");
 *   const signature = base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, data)));
 */

export type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const keys = new Map<string, Promise<HmacKey>>();

/**
 * The HMAC-SHA-256 key derived (HKDF-SHA-256) from the secret's text under `label`: a key per
 * use, none of them the key that seals secret values, so a string signed for one use never
 * verifies as another. Kept per isolate; rejects when the secret is unset.
 */
export function derivedHmacKey(secret: string | undefined, label: string): Promise<HmacKey> {
  if (!secret?.trim()) return Promise.reject(new Error("SECRETS_KEK is not set"));
  const id = `${label}\n${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = derive(secret, label);
    keys.set(id, key);
  }
  return key;
}

async function derive(secret: string, label: string): Promise<HmacKey> {
  const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode(label) },
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
}

/** @example base64url(new Uint8Array([251, 255])) // "-_8" */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes of a base64url text; throws on text that is not base64. */
export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
