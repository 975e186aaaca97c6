import * as z from "zod";
import { oneLine } from "../../core/validation/fields";
import type { FieldIssue } from "../../core/validation/issues";
import { pageOf } from "../http/page.schema";

/** Longest lifetime a token may be given, in days (ten years). */
const MAX_TOKEN_DAYS = 3650;

/**
 * Body of `POST /api/tokens`: a name, and either an absolute expiry or a lifetime in
 * days; neither means the token lives until revoked.
 *
 * @example TokenCreate.parse({ name: "CI", expires_in_days: 30 })
 */
export const TokenCreate = z
  .strictObject({
    name: oneLine(100),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    expires_in_days: z.int().min(1).max(MAX_TOKEN_DAYS).optional(),
  })
  .refine((b) => b.expires_at === undefined || b.expires_in_days === undefined, {
    message: "give expires_at or expires_in_days, not both",
    path: ["expires_in_days"],
  })
  .meta({ id: "TokenCreate" });
export type TokenCreate = z.infer<typeof TokenCreate>;

/**
 * The expiry a create body asks for, checked against now: in the future, within
 * MAX_TOKEN_DAYS, and no later than the expiry of the token creating it (`creatorExpiresAt`),
 * so an expiring token cannot mint itself a longer life. Null when the token does not expire.
 *
 * @example tokenExpiry({ name: "CI", expires_in_days: 1 }, now, null) // { expiresAt: now + 24 h }
 */
export function tokenExpiry(body: TokenCreate, now: Date, creatorExpiresAt: Date | null): { expiresAt: Date | null } | { issue: FieldIssue } {
  const latest = now.getTime() + MAX_TOKEN_DAYS * 86_400_000;
  const field = body.expires_in_days !== undefined ? "expires_in_days" : "expires_at";
  let expiresAt: Date | null = null;
  if (body.expires_in_days !== undefined) expiresAt = new Date(now.getTime() + body.expires_in_days * 86_400_000);
  else if (body.expires_at !== undefined) {
    expiresAt = new Date(body.expires_at);
    if (expiresAt.getTime() <= now.getTime()) return { issue: { field, message: "must be in the future" } };
    if (expiresAt.getTime() > latest) return { issue: { field, message: `must be within ${MAX_TOKEN_DAYS} days` } };
  }
  if (creatorExpiresAt && (!expiresAt || expiresAt.getTime() > creatorExpiresAt.getTime())) {
    const limit = creatorExpiresAt.toISOString();
    const message = expiresAt
      ? `must not be later than ${limit}, when the token creating it expires`
      : `is required: the token creating it expires at ${limit}, and a new token may not outlive it`;
    return { issue: { field, message } };
  }
  return { expiresAt };
}

/** A token as listed: never its secret or hash. */
export const Token = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string(),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
    expires_at: z.iso.datetime().nullable(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "Token" });

export const TokenPage = pageOf(Token, "TokenPage");

/** The answer of a create: the token and, this once, its secret. */
export const TokenCreated = Token.extend({ token: z.string().describe("The secret: shown in this answer only") }).meta({ id: "TokenCreated" });
