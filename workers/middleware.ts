import { and, eq, isNull, lt, or } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { bearerToken, hashToken } from "../core/auth/tokens";
import { openDatabase } from "../core/db/client";
import { apiTokens } from "../core/db/schema";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/** One pooled database connection per request, closed after the response. */
export const database = createMiddleware<AppEnv>(async (c, next) => {
  const { db, close } = openDatabase(c.env);
  c.set("db", db);
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(close());
  }
});

const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/** `Authorization: Bearer <token>`: 401 without a valid, unrevoked, unexpired token. */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("authorization"));
  if (!token) throw new ApiError(401, "auth.missing_token", "Send an API token as Authorization: Bearer <token>");
  const db = c.get("db");
  const hash = await hashToken(token);
  const [row] = await db
    .select({ id: apiTokens.id, organisationId: apiTokens.organisationId, lastUsedAt: apiTokens.lastUsedAt, expiresAt: apiTokens.expiresAt })
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, hash), isNull(apiTokens.revokedAt)))
    .limit(1);
  if (!row) throw new ApiError(401, "auth.invalid_token", "The API token is not valid");
  const now = new Date();
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) {
    throw new ApiError(401, "auth.token_expired", "The API token has expired");
  }
  c.set("organisationId", row.organisationId);
  c.set("tokenExpiresAt", row.expiresAt);
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Bounded write rate: at most one last_used_at update per token per hour.
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    c.executionCtx.waitUntil(
      db.update(apiTokens).set({ lastUsedAt: now })
        .where(and(eq(apiTokens.id, row.id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, stale))))
        .then(() => {}, () => {}),
    );
  }
  await next();
});
