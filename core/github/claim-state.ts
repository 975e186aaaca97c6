/**
 * The `state` of a GitHub App installation claim (OP-REPO-6): what ties GitHub's redirect back
 * to the organisation that asked for the install URL. It is signed with a key derived from a
 * Worker secret and names a random nonce and an expiry; the organisation is inside the
 * signature, not in the text, so the state says nothing about who asked and only that
 * organisation's token can present it. Single use is kept in Postgres (core/db/github-claims.ts),
 * not here: a signature alone cannot be spent.
 *
 * @example
 *   const key = await claimStateKey(env.SECRETS_KEK);
 *   const state = await mintClaimState(key, { organisationId, nonce: randomNonce(), expiresAt: Date.now() + CLAIM_STATE_TTL_MS });
 *   await readClaimState(key, state, { organisationId, now: Date.now() }) // { nonce, expiresAt }
 */

import { base64url, derivedHmacKey, fromBase64url, type HmacKey } from "../auth/signing";

/** Long enough to choose the repositories on GitHub's page and approve; short in a log. */
export const CLAIM_STATE_TTL_MS = 10 * 60 * 1000;

/**
 * The HMAC key of claim states, derived (HKDF-SHA-256, its own label) from the secret's text,
 * so it is neither the key that seals secret values nor the view tickets'. Kept per isolate.
 */
export const claimStateKey = (secret: string | undefined): Promise<HmacKey> => derivedHmacKey(secret, "guilds github claim state v1");

/** 16 random bytes, base64url (22 characters). */
export function randomNonce(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(16)));
}

const signed = (organisationId: string, nonce: string, expiresAt: number) => new TextEncoder().encode(`github-claim:${organisationId}:${nonce}:${expiresAt}`);

/** A state `<nonce>.<expiry base36>.<signature base64url>` for this organisation. */
export async function mintClaimState(key: HmacKey, input: { organisationId: string; nonce: string; expiresAt: number }): Promise<string> {
  const expiresAt = Math.floor(input.expiresAt);
  const signature = await crypto.subtle.sign("HMAC", key, signed(input.organisationId, input.nonce, expiresAt));
  return `${input.nonce}.${expiresAt.toString(36)}.${base64url(new Uint8Array(signature))}`;
}

/**
 * The state's nonce and expiry when it was minted for this organisation and has not expired;
 * null otherwise (another organisation's state, a forged or altered one, an expired one):
 * the caller learns no more than that.
 */
export async function readClaimState(
  key: HmacKey,
  state: string,
  expected: { organisationId: string; now: number },
): Promise<{ nonce: string; expiresAt: number } | null> {
  const match = /^([A-Za-z0-9_-]{22})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(state);
  if (!match) return null;
  const [, nonce, expiry, signature] = match as unknown as [string, string, string, string];
  const expiresAt = Number.parseInt(expiry, 36);
  if (!(expiresAt > expected.now)) return null;
  const valid = await crypto.subtle.verify("HMAC", key, fromBase64url(signature), signed(expected.organisationId, nonce, expiresAt));
  return valid ? { nonce, expiresAt } : null;
}
