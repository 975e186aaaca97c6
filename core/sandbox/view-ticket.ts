/**
 * View tickets: what authenticates the Browser and CLI views' page, asset and WebSocket
 * requests, which a browser sends without an Authorization header. A ticket is minted by
 * an authenticated `POST /api/agents/:id/{browser,cli}/start` (or `…/ticket`), names one
 * agent, one view and the API token that asked for it, expires after VIEW_TICKET_TTL_MS,
 * and is signed with a key derived from a Worker secret. The signature proves only who
 * minted it: every request under it still checks that the view is on, the agent exists and
 * the token is live (workers/views/view-access.ts).
 * It travels as the first path segment under the view's prefix (a cookie would not reach
 * the sandboxed, opaque-origin frame the views are shown in), so it is never the bearer
 * token: a ticket seen in a log opens only that agent's view, and only until it expires.
 *
 * @example
 *   const key = await viewTicketKey(env.SECRETS_KEK);
 *   const ticket = await mintViewTicket(key, { agentId, view: "cli", tokenId, expiresAt: Date.now() + VIEW_TICKET_TTL_MS });
 *   await verifyViewTicket(key, ticket, { agentId, view: "cli", now: Date.now() }) // { tokenId, expiresAt }
 */

import { base64url, derivedHmacKey, fromBase64url, type HmacKey } from "../auth/signing";

export type SandboxView = "browser" | "cli";

/**
 * How long a ticket opens its view: long enough to load the page and connect, short in a
 * log. An open tab asks for a new one before it expires.
 */
export const VIEW_TICKET_TTL_MS = 15 * 60 * 1000;

/**
 * The HMAC key of view tickets, derived (HKDF-SHA-256, its own label) from the secret's
 * text, so it is never the key that seals secret values. Kept per isolate.
 */
export const viewTicketKey = (secret: string | undefined): Promise<HmacKey> => derivedHmacKey(secret, "guilds sandbox view ticket v1");

/** What a valid ticket says besides its agent and view. */
export interface ViewTicketClaims {
  /** The API token whose request minted it: the view closes when that token is revoked or expires. */
  tokenId: string;
  expiresAt: number;
}

// v2: the token id joined the payload, so a ticket of the earlier form verifies as nothing.
const payload = (agentId: string, view: SandboxView, tokenId: string, expiresAt: number) =>
  new TextEncoder().encode(`view2:${agentId.toLowerCase()}:${view}:${tokenId.toLowerCase()}:${expiresAt}`);

/** A ticket `<expiry base36>.<token id, 32 hex>.<signature base64url>` for this agent's view. */
export async function mintViewTicket(key: HmacKey, input: { agentId: string; view: SandboxView; tokenId: string; expiresAt: number }): Promise<string> {
  const expiresAt = Math.floor(input.expiresAt);
  const token = input.tokenId.toLowerCase().replace(/-/g, "");
  if (!/^[0-9a-f]{32}$/.test(token)) throw new Error("A view ticket names its token by its uuid");
  const signature = await crypto.subtle.sign("HMAC", key, payload(input.agentId, input.view, dashed(token), expiresAt));
  return `${expiresAt.toString(36)}.${token}.${base64url(new Uint8Array(signature))}`;
}

/** The ticket's claims when it was minted for this agent's view and has not expired, else null. */
export async function verifyViewTicket(
  key: HmacKey,
  ticket: string,
  expected: { agentId: string; view: SandboxView; now: number },
): Promise<ViewTicketClaims | null> {
  const match = /^([0-9a-z]{1,12})\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/.exec(ticket);
  if (!match) return null;
  const expiresAt = Number.parseInt(match[1]!, 36);
  if (!(expiresAt > expected.now)) return null;
  const tokenId = dashed(match[2]!);
  const signature = fromBase64url(match[3]!);
  const valid = await crypto.subtle.verify("HMAC", key, signature, payload(expected.agentId, expected.view, tokenId, expiresAt));
  return valid ? { tokenId, expiresAt } : null;
}

/** 32 hex digits as a uuid's 8-4-4-4-12. */
const dashed = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
