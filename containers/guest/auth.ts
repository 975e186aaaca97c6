/** The per-sandbox bearer token check. */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Whether an Authorization header carries the token. Both sides are hashed first so the
 * comparison takes the same time whatever the length or content of the guess.
 *
 * @example bearerMatches("Bearer s3cret", "s3cret") // true
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}
