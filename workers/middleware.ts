import { and, eq, isNull, lt, or } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { bearerToken, hashToken } from "../core/auth/tokens";
import { type VerifiedToken, verifiedTokens } from "../core/auth/verified-tokens";
import { REQUEST_DEADLINE_MS } from "../core/db/client";
import { openEdgeDatabase } from "../core/db/http";
import { apiTokens } from "../core/db/schema";
import type { AppEnv } from "./http/context";
import { ApiError } from "./http/errors";

/**
 * The request's database, over Neon's HTTP query path (decision 0023); a pool opened by an
 * interactive transaction is closed after the response.
 */
export const database = createMiddleware<AppEnv>(async (c, next) => {
  const { db, close } = openEdgeDatabase(c.env, { deadlineMs: REQUEST_DEADLINE_MS });
  c.set("db", db);
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(close());
  }
});

const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/**
 * `Authorization: Bearer <token>`: 401 without a valid, unrevoked, unexpired token. A token
 * verified in this isolate within the last 30 s skips the database (see VerifiedTokens):
 * a revocation made through another isolate takes effect within that bound; expiry is
 * checked on every request.
 */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("authorization"));
  if (!token) throw new ApiError(401, "auth.missing_token", "Send an API token as Authorization: Bearer <token>");
  const db = c.get("db");
  const hash = await hashToken(token);
  let row: VerifiedToken | null = verifiedTokens.get(hash);
  if (!row) {
    [row = null] = await db
      .select({ id: apiTokens.id, organisationId: apiTokens.organisationId, lastUsedAt: apiTokens.lastUsedAt, expiresAt: apiTokens.expiresAt })
      .from(apiTokens)
      .where(and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt)))
      .limit(1);
    if (!row) throw new ApiError(401, "auth.invalid_token", "The API token is not valid");
    verifiedTokens.put(hash, row);
  }
  // The cache's clock, so expiry and the cache's bound are judged at the same instant.
  const now = new Date(verifiedTokens.now());
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) {
    verifiedTokens.evict({ hash });
    throw new ApiError(401, "auth.token_expired", "The API token has expired");
  }
  c.set("organisationId", row.organisationId);
  c.set("tokenId", row.id);
  c.set("tokenExpiresAt", row.expiresAt);
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Bounded write rate: at most one last_used_at update per token per hour.
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    verifiedTokens.touch(hash, now);
    c.executionCtx.waitUntil(
      db
        .update(apiTokens)
        .set({ lastUsedAt: now })
        .where(and(eq(apiTokens.id, row.id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, stale))))
        .then(
          () => {},
          () => {},
        ),
    );
  }
  await next();
});
