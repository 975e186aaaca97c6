import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../core/auth/tokens";
import { VERIFIED_TOKEN_TTL_MS, verifiedTokens } from "../core/auth/verified-tokens";
import { openDatabase } from "../core/db/client";
import { apiTokens } from "../core/db/schema";
import { call, seedOrganisation } from "../test/workerd/seed";

describe("API token auth", () => {
  let mine: { token: string; organisation_id: string };
  let theirs: { token: string; organisation_id: string };
  let theirGuild: string;
  let theirAgent: string;

  beforeAll(async () => {
    mine = await seedOrganisation("Mine");
    theirs = await seedOrganisation("Theirs");
    theirGuild = (await call("POST", "/api/guilds", { token: theirs.token, body: { name: "Theirs" } })).json.id;
    theirAgent = (await call("POST", `/api/guilds/${theirGuild}/agents`, { token: theirs.token, body: { name: "Their agent" } })).json.id;
  });

  it("answers 401 auth.missing_token without an Authorization header", async () => {
    const res = await call("GET", "/api/guilds");
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("auth.missing_token");
  });

  it("answers 401 for a malformed header and for an unknown token", async () => {
    expect((await call("GET", "/api/guilds", { headers: { authorization: "Basic abc" } })).status).toBe(401);
    const res = await call("GET", "/api/agents", { token: "gld_not-a-real-token" });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("auth.invalid_token");
  });

  afterEach(() => {
    verifiedTokens.now = Date.now;
  });

  /** Revokes a token straight in the database, as another Worker instance would. */
  async function revokeElsewhere(token: string) {
    const { db, close } = openDatabase(env);
    await db
      .update(apiTokens)
      .set({ revokedAt: new Date() })
      .where(eq(apiTokens.tokenHash, await hashToken(token)));
    await close();
  }

  it("HARDEN: a token revoked by another instance is refused once the verified-token bound has passed", async () => {
    const victim = await seedOrganisation("Revoked");
    expect((await call("GET", "/api/guilds", { token: victim.token })).status).toBe(200);
    await revokeElsewhere(victim.token);
    // Within the bound this instance still trusts its recent check (the documented 30 s).
    expect((await call("GET", "/api/guilds", { token: victim.token })).status).toBe(200);
    const verified = Date.now();
    verifiedTokens.now = () => verified + VERIFIED_TOKEN_TTL_MS;
    const res = await call("GET", "/api/guilds", { token: victim.token });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("auth.invalid_token");
  });

  it("HARDEN: a token revoked through the API is refused at once by the instance that revoked it", async () => {
    const owner = await seedOrganisation("Revoking");
    const created = await call("POST", "/api/tokens", { token: owner.token, body: { name: "short-lived" } });
    expect((await call("GET", "/api/guilds", { token: created.json.token })).status).toBe(200);
    expect((await call("DELETE", `/api/tokens/${created.json.id}`, { token: owner.token })).status).toBe(204);
    const res = await call("GET", "/api/guilds", { token: created.json.token });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("auth.invalid_token");
  });

  it("HARDEN: a cached token is refused the moment it expires, from the cached expiry", async () => {
    const owner = await seedOrganisation("Expiring");
    const expiresAt = new Date(Date.now() + 5_000);
    const created = await call("POST", "/api/tokens", { token: owner.token, body: { name: "expiring", expires_at: expiresAt.toISOString() } });
    expect(created.status).toBe(201);
    expect((await call("GET", "/api/guilds", { token: created.json.token })).status).toBe(200);
    // Inside the cache's bound, a millisecond past expires_at.
    verifiedTokens.now = () => expiresAt.getTime() + 1;
    const res = await call("GET", "/api/guilds", { token: created.json.token });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("auth.token_expired");
  });

  it("stores only a hash of the token", async () => {
    const { db, close } = openDatabase(env);
    const rows = await db.select().from(apiTokens).where(eq(apiTokens.organisationId, mine.organisation_id));
    await close();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(mine.token);
    expect(rows[0]!.tokenHash).toBe(await hashToken(mine.token));
  });

  it("answers 404, never 403, for another organisation's agent and guild", async () => {
    for (const [method, path, body] of [
      ["GET", `/api/agents/${theirAgent}`],
      ["PATCH", `/api/agents/${theirAgent}`, { name: "Stolen" }],
      ["DELETE", `/api/agents/${theirAgent}`],
      ["GET", `/api/guilds/${theirGuild}`],
      ["PATCH", `/api/guilds/${theirGuild}`, { name: "Stolen" }],
      ["DELETE", `/api/guilds/${theirGuild}`],
      ["POST", `/api/guilds/${theirGuild}/agents`, { name: "Intruder" }],
    ] as const) {
      const res = await call(method, path, { token: mine.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const list = await call("GET", "/api/agents", { token: mine.token });
    expect(list.json.data.map((a: { id: string }) => a.id)).not.toContain(theirAgent);
    // Nothing of theirs changed.
    const still = await call("GET", `/api/agents/${theirAgent}`, { token: theirs.token });
    expect(still.json.name).toBe("Their agent");
  });

  it("leaves /api/health and /api/openapi.json open", async () => {
    expect((await call("GET", "/api/health")).status).toBe(200);
    expect((await call("GET", "/api/openapi.json")).status).toBe(200);
  });
});
