import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../core/auth/tokens";
import { verifiedTokens } from "../../core/auth/verified-tokens";
import { openDatabase } from "../../core/db/client";
import { apiTokens } from "../../core/db/schema";
import { call, seedOrganisation } from "../../test/workerd/seed";

const DAY = 86_400_000;

describe("HARDEN-5: API tokens", () => {
  let mine: { token: string; organisation_id: string };
  let theirs: { token: string; organisation_id: string };

  beforeAll(async () => {
    mine = await seedOrganisation("Token owner");
    theirs = await seedOrganisation("Token neighbour");
  });

  it("HARDEN-5: creates a token whose secret is shown once and which then authenticates", async () => {
    const created = await call("POST", "/api/tokens", { token: mine.token, body: { name: "CI", expires_in_days: 30 } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const secret = created.json.token as string;
    expect(secret).toMatch(/^gld_/);
    expect(secret.startsWith(created.json.prefix)).toBe(true);
    const expires = new Date(created.json.expires_at).getTime();
    expect(Math.abs(expires - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    expect(created.json.revoked_at).toBeNull();

    const guilds = await call("GET", "/api/guilds", { token: secret });
    expect(guilds.status).toBe(200);

    const list = await call("GET", "/api/tokens", { token: mine.token });
    expect(list.status).toBe(200);
    const listed = list.json.data.find((t: { id: string }) => t.id === created.json.id);
    expect(Object.keys(listed).sort()).toEqual(["created_at", "expires_at", "id", "last_used_at", "name", "prefix", "revoked_at"]);
    expect(listed.name).toBe("CI");
    expect(JSON.stringify(list.json)).not.toContain(secret);
    expect(JSON.stringify(list.json)).not.toContain(await hashToken(secret));

    const { db, close } = openDatabase(env);
    const [stored] = await db.select().from(apiTokens).where(eq(apiTokens.id, created.json.id));
    await close();
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored!.tokenHash).toBe(await hashToken(secret));
  });

  it("HARDEN-5: takes an absolute expires_at and lists tokens newest first", async () => {
    const at = new Date(Date.now() + 2 * DAY).toISOString();
    const created = await call("POST", "/api/tokens", { token: mine.token, body: { name: "Laptop", expires_at: at } });
    expect(created.status).toBe(201);
    expect(created.json.expires_at).toBe(at);
    const forever = await call("POST", "/api/tokens", { token: mine.token, body: { name: "Forever" } });
    expect(forever.json.expires_at).toBeNull();
    const list = await call("GET", "/api/tokens", { token: mine.token });
    expect(list.json.data.map((t: { name: string }) => t.name).slice(0, 2)).toEqual(["Forever", "Laptop"]);
  });

  it("HARDEN-5: refuses a past expiry, both expiry fields, a missing name, each field named", async () => {
    for (const [body, field] of [
      [{ name: "Old", expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at"],
      [{ name: "Both", expires_at: new Date(Date.now() + DAY).toISOString(), expires_in_days: 1 }, "expires_in_days"],
      [{ name: "Zero", expires_in_days: 0 }, "expires_in_days"],
      [{ name: "Not a date", expires_at: "tomorrow" }, "expires_at"],
      [{ expires_in_days: 3 }, "name"],
    ] as const) {
      const res = await call("POST", "/api/tokens", { token: mine.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });

  it("HARDEN-5: a token may not create one that outlives it, nor one that never expires", async () => {
    const parent = await call("POST", "/api/tokens", { token: mine.token, body: { name: "Expiring parent", expires_in_days: 2 } });
    const secret = parent.json.token as string;
    for (const [body, field] of [
      [{ name: "Forever child" }, "expires_at"],
      [{ name: "Longer child", expires_in_days: 3 }, "expires_in_days"],
      [{ name: "Later child", expires_at: new Date(Date.now() + 3 * DAY).toISOString() }, "expires_at"],
    ] as const) {
      const res = await call("POST", "/api/tokens", { token: secret, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
      expect(res.json.error.message).toContain(parent.json.expires_at);
    }
    const child = await call("POST", "/api/tokens", { token: secret, body: { name: "Shorter child", expires_in_days: 1 } });
    expect(child.status).toBe(201);
    const names = (await call("GET", "/api/tokens", { token: mine.token })).json.data.map((t: { name: string }) => t.name);
    expect(names).toContain("Shorter child");
    expect(names).not.toContain("Forever child");
  });

  it("HARDEN-5: the create answer, which carries the secret, is never cached", async () => {
    const created = await call("POST", "/api/tokens", { token: mine.token, body: { name: "Uncached" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
  });

  it("HARDEN-5: a revoked token is refused; revoking another organisation's token is 404", async () => {
    const created = await call("POST", "/api/tokens", { token: mine.token, body: { name: "Short-lived" } });
    const secret = created.json.token as string;
    expect((await call("GET", "/api/guilds", { token: secret })).status).toBe(200);

    const foreign = await call("DELETE", `/api/tokens/${created.json.id}`, { token: theirs.token });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe("token.not_found");
    expect((await call("GET", "/api/guilds", { token: secret })).status).toBe(200);
    expect((await call("DELETE", "/api/tokens/not-a-uuid", { token: mine.token })).status).toBe(404);

    expect((await call("DELETE", `/api/tokens/${created.json.id}`, { token: mine.token })).status).toBe(204);
    const refused = await call("GET", "/api/guilds", { token: secret });
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe("auth.invalid_token");
    // Revoking again is harmless and keeps the first revocation time.
    const before = (await call("GET", "/api/tokens", { token: mine.token })).json.data.find((t: { id: string }) => t.id === created.json.id);
    expect(before.revoked_at).not.toBeNull();
    expect((await call("DELETE", `/api/tokens/${created.json.id}`, { token: mine.token })).status).toBe(204);
    const after = (await call("GET", "/api/tokens", { token: mine.token })).json.data.find((t: { id: string }) => t.id === created.json.id);
    expect(after.revoked_at).toBe(before.revoked_at);
    // The other organisation never sees it.
    const theirList = await call("GET", "/api/tokens", { token: theirs.token });
    expect(theirList.json.data.map((t: { id: string }) => t.id)).not.toContain(created.json.id);
  });

  it("HARDEN-5: an expired token is 401 auth.token_expired", async () => {
    const created = await call("POST", "/api/tokens", { token: mine.token, body: { name: "Expiring", expires_in_days: 1 } });
    const secret = created.json.token as string;
    expect((await call("GET", "/api/guilds", { token: secret })).status).toBe(200);
    const { db, close } = openDatabase(env);
    await db
      .update(apiTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(apiTokens.id, created.json.id));
    await close();
    // The API never moves an expiry; a change made in the database is seen once this
    // isolate's verification of the token is forgotten (at most 30 s later).
    verifiedTokens.clear();
    const res = await call("GET", "/api/guilds", { token: secret });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("auth.token_expired");
  });

  it("HARDEN-5: the OpenAPI document describes the token routes, their body and the rate limit", async () => {
    const doc = (await call("GET", "/api/openapi.json")).json;
    const named = (schema: { $ref: string }) => doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")];
    expect(Object.keys(doc.paths["/api/tokens"]).sort()).toEqual(["get", "post"]);
    expect(doc.paths["/api/tokens/{id}"].delete.responses["204"]).toBeDefined();
    const body = named(doc.paths["/api/tokens"].post.requestBody.content["application/json"].schema);
    expect(Object.keys(body.properties).sort()).toEqual(["expires_at", "expires_in_days", "name"]);
    const created = named(doc.paths["/api/tokens"].post.responses["201"].content["application/json"].schema);
    expect(created.required).toContain("token");
    const listed = named(named(doc.paths["/api/tokens"].get.responses["200"].content["application/json"].schema).properties.data.items);
    expect(Object.keys(listed.properties)).not.toContain("token");
    expect(doc.paths["/api/tokens"].get.responses["429"]).toBeDefined();
    expect(doc.paths["/api/health"].get.responses["429"]).toBeUndefined();
  });
});
