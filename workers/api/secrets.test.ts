import { env } from "cloudflare:workers";
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { secrets } from "../../core/db/schema";
import { MAX_SECRETS_PER_ORGANISATION } from "../../core/secrets/limit";
import { SECRET_VALUE_CANARY } from "../../test/setup/secret-canary";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

async function storedRow(id: string) {
  const { db, close } = openDatabase(env);
  try {
    const [row] = await db.select().from(secrets).where(eq(secrets.id, id));
    return row;
  } finally {
    await close();
  }
}

/** Rows written straight into the table, as secrets stored before the cap would be. */
async function insertRows(organisationId: string, n: number) {
  const { db, close } = openDatabase(env);
  try {
    const rows = Array.from({ length: n }, (_, i) => ({ organisationId, name: `FILLER_${i}`, ciphertext: "AAAA", iv: "AAAAAAAAAAAAAAAA", keyVersion: "v1" }));
    await db.insert(secrets).values(rows);
  } finally {
    await close();
  }
}

async function countSecrets(organisationId: string) {
  const { db, close } = openDatabase(env);
  try {
    const [row] = await db.select({ n: count() }).from(secrets).where(eq(secrets.organisationId, organisationId));
    return row!.n;
  } finally {
    await close();
  }
}

describe("secrets API (OP-SEC-1)", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("OP-SEC-1 / SEC-006: creates, reads, lists, updates and deletes a secret without ever returning its value", async () => {
    // Each response passes through the canary check of the test helper (test/workerd/canary.ts).
    const created = await call("POST", "/api/secrets", { token, body: { name: "CRUD_TOKEN", value: SECRET_VALUE_CANARY, description: "for the CRUD test" } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "CRUD_TOKEN", description: "for the CRUD test", org_wide: false, grants: [] });
    expect(created.json).not.toHaveProperty("value");
    expect(created.json).not.toHaveProperty("ciphertext");
    const id = created.json.id as string;
    expect((await call("GET", `/api/secrets/${id}`, { token })).json).toEqual(created.json);
    const list = await call("GET", "/api/secrets", { token });
    expect(list.json.data.map((s: { name: string }) => s.name)).toContain("CRUD_TOKEN");
    const before = await storedRow(id);
    const patched = await call("PATCH", `/api/secrets/${id}`, { token, body: { name: "CRUD_TOKEN_2", value: `${SECRET_VALUE_CANARY}-new`, org_wide: true } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ name: "CRUD_TOKEN_2", description: "for the CRUD test", org_wide: true });
    const after = await storedRow(id);
    expect(after!.ciphertext).not.toBe(before!.ciphertext);
    expect(after!.iv).not.toBe(before!.iv);
    expect((await call("DELETE", `/api/secrets/${id}`, { token })).status).toBe(204);
    expect((await call("GET", `/api/secrets/${id}`, { token })).status).toBe(404);
    expect((await call("DELETE", `/api/secrets/${id}`, { token })).status).toBe(404);
  });

  it("OP-SEC-4: the stored value is ciphertext under the current key version, never the plaintext", async () => {
    const created = await call("POST", "/api/secrets", { token, body: { name: "AT_REST", value: SECRET_VALUE_CANARY } });
    const row = await storedRow(created.json.id);
    expect(row!.keyVersion).toBe("v1");
    expect(row!.ciphertext).not.toContain(SECRET_VALUE_CANARY);
    expect(atob(row!.ciphertext)).not.toContain(SECRET_VALUE_CANARY);
    expect(atob(row!.iv)).toHaveLength(12);
  });

  it("OP-SEC-3: a name that is not an environment variable or is reserved is a 422 naming the field", async () => {
    for (const name of [
      "lower_case",
      "1STARTS_WITH_DIGIT",
      "HAS-DASH",
      "",
      "PATH",
      "HOME",
      "GUILD_RUN_ID",
      "GUEST_HOME",
      "LD_PRELOAD",
      "NODE_OPTIONS",
      "BASH_ENV",
      "ENV",
      "PYTHONPATH",
    ]) {
      const res = await call("POST", "/api/secrets", { token, body: { name, value: "v" } });
      expect(res.status, name).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["name"]);
    }
    const noValue = await call("POST", "/api/secrets", { token, body: { name: "NO_VALUE" } });
    expect(noValue.status).toBe(422);
    expect(noValue.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["value"]);
    const existing = (await call("POST", "/api/secrets", { token, body: { name: "PATCHED", value: "v" } })).json;
    const empty = await call("PATCH", `/api/secrets/${existing.id}`, { token, body: {} });
    expect(empty.status).toBe(422);
    const badValue = await call("PATCH", `/api/secrets/${existing.id}`, { token, body: { value: "" } });
    expect(badValue.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["value"]);
  });

  it("OP-SEC-2: a name already used in the organisation is a 409, on create and on rename", async () => {
    await call("POST", "/api/secrets", { token, body: { name: "TAKEN_NAME", value: "a" } });
    const dup = await call("POST", "/api/secrets", { token, body: { name: "TAKEN_NAME", value: "b" } });
    expect(dup.status).toBe(409);
    expect(dup.json.error.code).toBe("secret.name_taken");
    const other = await call("POST", "/api/secrets", { token, body: { name: "OTHER_NAME", value: "c" } });
    const rename = await call("PATCH", `/api/secrets/${other.json.id}`, { token, body: { name: "TAKEN_NAME" } });
    expect(rename.status).toBe(409);
  });

  it("OP-SEC-1: grants to a guild and an agent of the organisation, refuses a duplicate, revokes", async () => {
    const agent = await newAgent(token, guildId);
    const secret = (await call("POST", "/api/secrets", { token, body: { name: "GRANTED", value: "v" } })).json;
    const toGuild = await call("POST", `/api/secrets/${secret.id}/grants`, { token, body: { guild_id: guildId } });
    expect(toGuild.status).toBe(201);
    const toAgent = await call("POST", `/api/secrets/${secret.id}/grants`, { token, body: { agent_id: agent.id } });
    expect(toAgent.json.grants).toEqual([
      { id: expect.any(String), guild_id: guildId, agent_id: null, created_at: expect.any(String) },
      { id: expect.any(String), guild_id: null, agent_id: agent.id, created_at: expect.any(String) },
    ]);
    const again = await call("POST", `/api/secrets/${secret.id}/grants`, { token, body: { agent_id: agent.id } });
    expect(again.status).toBe(409);
    const both = await call("POST", `/api/secrets/${secret.id}/grants`, { token, body: { agent_id: agent.id, guild_id: guildId } });
    expect(both.status).toBe(422);
    const grantId = toAgent.json.grants[1].id;
    const revoked = await call("DELETE", `/api/secrets/${secret.id}/grants/${grantId}`, { token });
    expect(revoked.status).toBe(200);
    expect(revoked.json.grants.map((g: { guild_id: string }) => g.guild_id)).toEqual([guildId]);
    expect((await call("DELETE", `/api/secrets/${secret.id}/grants/${grantId}`, { token })).status).toBe(404);
  });

  it("OP-SEC-1: another organisation's secret, guild and agent are not found", async () => {
    const other = await seedGuild("Other org");
    const otherAgent = await newAgent(other.token, other.guildId);
    const theirs = (await call("POST", "/api/secrets", { token: other.token, body: { name: "THEIRS", value: "v" } })).json;
    expect((await call("GET", `/api/secrets/${theirs.id}`, { token })).status).toBe(404);
    expect((await call("PATCH", `/api/secrets/${theirs.id}`, { token, body: { description: "x" } })).status).toBe(404);
    expect((await call("DELETE", `/api/secrets/${theirs.id}`, { token })).status).toBe(404);
    expect((await call("GET", "/api/secrets", { token })).json.data.map((s: { name: string }) => s.name)).not.toContain("THEIRS");
    // The same name is free in another organisation (OP-SEC-2 is per organisation).
    expect((await call("POST", "/api/secrets", { token, body: { name: "THEIRS", value: "v" } })).status).toBe(201);
    const mine = (await call("POST", "/api/secrets", { token, body: { name: "MINE", value: "v" } })).json;
    const toTheirGuild = await call("POST", `/api/secrets/${mine.id}/grants`, { token, body: { guild_id: other.guildId } });
    expect(toTheirGuild.status).toBe(404);
    expect(toTheirGuild.json.error.code).toBe("guild.not_found");
    const toTheirAgent = await call("POST", `/api/secrets/${mine.id}/grants`, { token, body: { agent_id: otherAgent.id } });
    expect(toTheirAgent.json.error.code).toBe("agent.not_found");
  });

  it("OP-SEC-1: the list is paged newest first like every other list, and a bad cursor is a 422 naming it", async () => {
    const org = await seedGuild("Paged secrets");
    const names = ["PAGE_A", "PAGE_B", "PAGE_C", "PAGE_D", "PAGE_E"];
    for (const name of names) expect((await call("POST", "/api/secrets", { token: org.token, body: { name, value: "v" } })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : "?limit=2";
      const page = await call("GET", `/api/secrets${query}`, { token: org.token });
      expect(page.status).toBe(200);
      expect(page.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.data.map((s: { name: string }) => s.name));
      cursor = page.json.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...names].reverse());
    const bad = await call("GET", "/api/secrets?cursor=not-a-cursor", { token: org.token });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["cursor"]);
    expect((await call("GET", "/api/secrets?limit=201", { token: org.token })).status).toBe(422);
  });

  it("OP-SEC-1: an organisation holds at most the cap; simultaneous creates one short of it let exactly one in", async () => {
    const org = await seedGuild("Secret cap");
    await insertRows(org.organisationId, MAX_SECRETS_PER_ORGANISATION - 1);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => call("POST", "/api/secrets", { token: org.token, body: { name: `RACE_${i}`, value: "v" } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.json.error.code).toBe("secret.limit_reached");
    expect(refused.json.error.message).toContain(`at most ${MAX_SECRETS_PER_ORGANISATION} secrets`);
    expect(refused.json.error.details.limit).toBe(MAX_SECRETS_PER_ORGANISATION);
    expect(await countSecrets(org.organisationId)).toBe(MAX_SECRETS_PER_ORGANISATION);
    // Another organisation is not affected, and deleting one makes room again.
    expect((await call("POST", "/api/secrets", { token, body: { name: "UNDER_ITS_OWN_CAP", value: "v" } })).status).toBe(201);
    const newest = (await call("GET", "/api/secrets?limit=1", { token: org.token })).json.data[0];
    expect((await call("DELETE", `/api/secrets/${newest.id}`, { token: org.token })).status).toBe(204);
    expect((await call("POST", "/api/secrets", { token: org.token, body: { name: "AFTER_DELETE", value: "v" } })).status).toBe(201);
  });
});
