/**
 * View tickets: what authenticates the Browser and CLI views' page, asset and WebSocket
 * requests, which a browser sends without an Authorization header. A ticket is minted by
 * an authenticated `POST /api/agents/:id/{browser,cli}/start`, names one agent and one view,
 * expires after VIEW_TICKET_TTL_MS, and is signed with a key derived from a Worker secret.
 * It travels as the first path segment under the view's prefix (a cookie would not reach
 * the sandboxed, opaque-origin frame the views are shown in), so it is never the bearer
 * token: a ticket seen in a log opens only that agent's view, and only until it expires.
 *
 * @example
 *   const key = await viewTicketKey(env.SECRETS_KEK);
 *   const ticket = await mintViewTicket(key, { agentId, view: "cli", expiresAt: Date.now() + VIEW_TICKET_TTL_MS });
 *   await verifyViewTicket(key, ticket, { agentId, view: "cli", now: Date.now() }) // true
 */

export type SandboxView = "browser" | "cli";

/** How long a ticket opens its view: long enough to load the page and connect, short in a log. */
export const VIEW_TICKET_TTL_MS = 60 * 60 * 1000;

type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const keys = new Map<string, Promise<HmacKey>>();

/**
 * The HMAC key of view tickets, derived (HKDF-SHA-256, its own label) from the secret's
 * text, so it is never the key that seals secret values. Kept per isolate.
 */
export function viewTicketKey(secret: string | undefined): Promise<HmacKey> {
  if (!secret?.trim()) return Promise.reject(new Error("SECRETS_KEK is not set"));
  let key = keys.get(secret);
  if (!key) {
    key = derive(secret);
    keys.set(secret, key);
  }
  return key;
}

async function derive(secret: string): Promise<HmacKey> {
  const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("guilds sandbox view ticket v1") },
    base,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
}

const payload = (agentId: string, view: SandboxView, expiresAt: number) => new TextEncoder().encode(`view:${agentId}:${view}:${expiresAt}`);

/** A ticket `<expiry base36>.<signature base64url>` for this agent's view. */
export async function mintViewTicket(key: HmacKey, input: { agentId: string; view: SandboxView; expiresAt: number }): Promise<string> {
  const expiresAt = Math.floor(input.expiresAt);
  const signature = await crypto.subtle.sign("HMAC", key, payload(input.agentId, input.view, expiresAt));
  return `${expiresAt.toString(36)}.${base64url(new Uint8Array(signature))}`;
}

/** True when the ticket was minted for this agent's view and has not expired. */
export async function verifyViewTicket(key: HmacKey, ticket: string, expected: { agentId: string; view: SandboxView; now: number }): Promise<boolean> {
  const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(ticket);
  if (!match) return false;
  const expiresAt = Number.parseInt(match[1]!, 36);
  if (!(expiresAt > expected.now)) return false;
  const signature = fromBase64url(match[2]!);
  return crypto.subtle.verify("HMAC", key, signature, payload(expected.agentId, expected.view, expiresAt));
}

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
