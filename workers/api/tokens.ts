import { and, eq, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import { newToken } from "../../core/auth/tokens";
import { apiTokens } from "../../core/db/schema";
import { isUuid } from "../../core/validation/fields";
import { Token, TokenCreate, TokenCreated, tokenExpiry } from "../../core/validation/token";
import { readBody } from "../body";
import type { AppEnv } from "../context";
import { notFound, validationFailed } from "../errors";
import type { RouteDoc } from "../openapi";
import { listPageOf } from "../pagination";

type TokenRow = typeof apiTokens.$inferSelect;

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** A token as the API shows it: never its secret or its hash. */
const toToken = (row: TokenRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: row.createdAt.toISOString(),
  last_used_at: iso(row.lastUsedAt),
  expires_at: iso(row.expiresAt),
  revoked_at: iso(row.revokedAt),
});

/**
 * `/api/tokens`: the organisation's API tokens. A new token's secret is in the create
 * answer only; the database keeps its SHA-256 (core/auth/tokens.ts).
 */
export const tokenRoutes = new Hono<AppEnv>()
  .post("/", async (c) => {
    const body = await readBody(c, TokenCreate);
    const expiry = tokenExpiry(body, new Date(), c.get("tokenExpiresAt"));
    if ("issue" in expiry) throw validationFailed([expiry.issue]);
    const { token, hash, prefix } = await newToken();
    const [row] = await c.get("db").insert(apiTokens).values({
      organisationId: c.get("organisationId"), name: body.name, tokenHash: hash, prefix, expiresAt: expiry.expiresAt,
    }).returning();
    // The answer carries the secret: no cache may keep it.
    c.header("Cache-Control", "no-store");
    return c.json({ ...toToken(row!), token }, 201);
  })
  .get("/", async (c) => {
    const page = listPageOf(c.req.query());
    const rows = await c.get("db").select().from(apiTokens)
      .where(and(eq(apiTokens.organisationId, c.get("organisationId")), page.where(apiTokens.createdAt, apiTokens.id)))
      .orderBy(...page.order(apiTokens.createdAt, apiTokens.id))
      .limit(page.limit + 1);
    return c.json(page.result(rows, toToken));
  })
  .delete("/:id", async (c) => {
    const id = c.req.param("id");
    if (!isUuid(id)) throw notFound("token");
    const scope = and(eq(apiTokens.id, id), eq(apiTokens.organisationId, c.get("organisationId")));
    // Revoking twice keeps the first revocation time.
    const [revoked] = await c.get("db").update(apiTokens).set({ revokedAt: sql`now()` })
      .where(and(scope, isNull(apiTokens.revokedAt))).returning({ id: apiTokens.id });
    if (!revoked) {
      const [exists] = await c.get("db").select({ id: apiTokens.id }).from(apiTokens).where(scope).limit(1);
      if (!exists) throw notFound("token");
    }
    return c.body(null, 204);
  });

export const tokenDocs: RouteDoc[] = [
  { method: "post", path: "/api/tokens", summary: "Create an API token (optional expires_at or expires_in_days); its secret is in this answer only", tag: "Tokens", body: TokenCreate, response: TokenCreated, status: 201 },
  { method: "get", path: "/api/tokens", summary: "The organisation's API tokens, newest first, without their secrets", tag: "Tokens", response: Token, list: true },
  { method: "delete", path: "/api/tokens/{id}", summary: "Revoke a token: it is refused (401) from then on", tag: "Tokens", status: 204 },
];
