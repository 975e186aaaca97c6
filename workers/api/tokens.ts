import { and, eq, isNull, sql } from "drizzle-orm";
import { Hono } from "hono";
import { newToken } from "../../core/auth/tokens";
import { verifiedTokens } from "../../core/auth/verified-tokens";
import { apiTokens } from "../../core/db/schema";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { notFound, validationFailed } from "../http/errors";
import { ListQuery } from "../http/page.schema";
import { listPage, organisationRows } from "../http/pagination";
import { forgetViewAccess } from "../views/view-access";
import { TokenCreate, TokenCreated, TokenPage, tokenExpiry } from "./tokens.schema";

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
  .post(
    "/",
    operation({
      operationId: "createToken",
      summary: "Create an API token; its secret is in this answer only (Cache-Control: no-store)",
      tag: "Tokens",
      responses: { 201: ok("The token with its secret", TokenCreated) },
      body: true,
      invalid: "an expiry in the past, beyond ten years or later than the expiry of the token creating it",
    }),
    jsonBody(TokenCreate),
    async (c) => {
      const body = c.req.valid("json");
      const expiry = tokenExpiry(body, new Date(), c.get("tokenExpiresAt"));
      if ("issue" in expiry) throw validationFailed([expiry.issue]);
      const { token, hash, prefix } = await newToken();
      const [row] = await c
        .get("db")
        .insert(apiTokens)
        .values({
          organisationId: c.get("organisationId"),
          name: body.name,
          tokenHash: hash,
          prefix,
          expiresAt: expiry.expiresAt,
        })
        .returning();
      // The answer carries the secret: no cache may keep it.
      c.header("Cache-Control", "no-store");
      return c.json({ ...toToken(row!), token }, 201);
    },
  )
  .get(
    "/",
    operation({
      operationId: "listTokens",
      summary: "The organisation's API tokens, newest first, without their secrets",
      tag: "Tokens",
      responses: { 200: ok("A page of tokens", TokenPage) },
      query: true,
    }),
    query(ListQuery),
    async (c) => {
      const page = listPage(c.req.valid("query"));
      const rows = await organisationRows(c.get("db"), apiTokens, c.get("organisationId"), page);
      return c.json(page.result(rows, toToken));
    },
  )
  .delete(
    "/:id",
    operation({
      operationId: "revokeToken",
      summary: "Revoke a token: it is refused (401) from then on",
      tag: "Tokens",
      responses: { 204: ok("Revoked (also when it already was)") },
      notFound: "token",
    }),
    pathId("token"),
    async (c) => {
      const { id } = c.req.valid("param");
      const scope = and(eq(apiTokens.id, id), eq(apiTokens.organisationId, c.get("organisationId")));
      // Revoking twice keeps the first revocation time.
      const [revoked] = await c
        .get("db")
        .update(apiTokens)
        .set({ revokedAt: sql`now()` })
        .where(and(scope, isNull(apiTokens.revokedAt)))
        .returning({ id: apiTokens.id });
      // This isolate stops accepting it at once; others within the verified-token bound (30 s).
      verifiedTokens.evict({ id });
      forgetViewAccess({ tokenId: id });
      if (!revoked) {
        const [exists] = await c.get("db").select({ id: apiTokens.id }).from(apiTokens).where(scope).limit(1);
        if (!exists) throw notFound("token");
      }
      return c.body(null, 204);
    },
  );
