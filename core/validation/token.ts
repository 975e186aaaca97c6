import { z } from "zod";
import { oneLine } from "./fields";
import type { FieldIssue } from "./issues";

/** Longest lifetime a token may be given, in days (ten years). */
export const MAX_TOKEN_DAYS = 3650;

/**
 * Body of `POST /api/tokens`: a name, and either an absolute expiry or a lifetime in
 * days; neither means the token lives until revoked.
 *
 * @example TokenCreate.parse({ name: "CI", expires_in_days: 30 })
 */
export const TokenCreate = z.strictObject({
  name: oneLine(100),
  expires_at: z.iso.datetime({ offset: true }).optional(),
  expires_in_days: z.int().min(1).max(MAX_TOKEN_DAYS).optional(),
}).refine((b) => b.expires_at === undefined || b.expires_in_days === undefined, {
  message: "give expires_at or expires_in_days, not both", path: ["expires_in_days"],
});
export type TokenCreate = z.infer<typeof TokenCreate>;

/**
 * The expiry a create body asks for, checked against now: in the future and within
 * MAX_TOKEN_DAYS. Null when the token does not expire.
 *
 * @example tokenExpiry({ name: "CI", expires_in_days: 1 }, now) // { expiresAt: now + 24 h }
 */
export function tokenExpiry(body: TokenCreate, now: Date): { expiresAt: Date | null } | { issue: FieldIssue } {
  const latest = now.getTime() + MAX_TOKEN_DAYS * 86_400_000;
  if (body.expires_in_days !== undefined) return { expiresAt: new Date(now.getTime() + body.expires_in_days * 86_400_000) };
  if (body.expires_at === undefined) return { expiresAt: null };
  const at = new Date(body.expires_at);
  if (at.getTime() <= now.getTime()) return { issue: { field: "expires_at", message: "must be in the future" } };
  if (at.getTime() > latest) return { issue: { field: "expires_at", message: `must be within ${MAX_TOKEN_DAYS} days` } };
  return { expiresAt: at };
}

/** A token as listed: never its secret or hash. */
export const Token = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  expires_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
});

/** The answer of a create: the token and, this once, its secret. */
export const TokenCreated = Token.extend({ token: z.string() });
