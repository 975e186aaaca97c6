import { base64url } from "./signing";
/** Operator API tokens: `gld_` + 32 random bytes, base64url. Only their SHA-256 is stored. */
export const TOKEN_PREFIX = "gld_";

/**
 * A new random token with the hash and display prefix to store.
 *
 * @example const { token, hash, prefix } = await newToken(); // token shown once, hash stored
 */
export async function newToken(): Promise<{ token: string; hash: string; prefix: string }> {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = TOKEN_PREFIX + base64url(bytes);
  return { token, hash: await hashToken(token), prefix: token.slice(0, TOKEN_PREFIX.length + 6) };
}

/** Hex SHA-256 of a token: tokens are long and random, so a fast hash is enough. */
export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads the token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined | null): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? null;
}
