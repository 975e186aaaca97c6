import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { repositoriesForGeneration } from "../../core/db/repositories";
import { githubConnections, guildRepositories } from "../../core/db/schema";
import { repositorySeedKey, volumeObjectKey } from "../../core/tasks/key";
import { claim } from "../../test/workerd/github";
import { call, seedGuild } from "../../test/workerd/seed";
import { app } from "../app";

/** Repositories and GitHub connections (OP-REPO-6), the local forge standing in for GitHub (test/setup/database.ts). */

const testEnv = env as unknown as Env;
const FORGE_ADMIN = testEnv.GITHUB_API_URL!.replace(/\/api$/, "/__forge");

async function forge(method: string, path: string, body?: unknown) {
  const res = await fetch(`${FORGE_ADMIN}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
}

/** Tokens the forge has minted so far. */
const mintedTokens = async (): Promise<string[]> => (await forge("GET", "/tokens")).tokens.map((t: { token: string }) => t.token);

async function withDb<T>(use: (db: ReturnType<typeof openDatabase>["db"]) => Promise<T>): Promise<T> {
  const { db, close } = openDatabase(testEnv);
  try {
    return await use(db);
  } finally {
    await close();
  }
}

/** An account on the forge with these private repositories. */
async function account(name: string, repos: string[]) {
  for (const repo of repos) await forge("POST", "/repos", { full_name: `${name}/${repo}`, private: true });
}

describe("GitHub connections (OP-REPO-6)", () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await seedGuild("Connections"));
    await account("conn-org", ["app"]);
  });

  it("OP-REPO-6: a claim records the installation's account; disconnect keeps it, claiming again reconnects it", async () => {
    const { connection: created, installationId } = await claim(token, "conn-org", ["app"]);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ installation_id: installationId, account_login: "conn-org", disconnected_at: null });
    const listed = await call("GET", "/api/github/connections", { token });
    expect(listed.json).toEqual({ data: [created.json], configured: true });
    const again = (await claim(token, "conn-org")).connection;
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("github_connection.exists");

    const disconnected = await call("DELETE", `/api/github/connections/${created.json.id}`, { token });
    expect(disconnected.status).toBe(200);
    expect(disconnected.json.disconnected_at).toEqual(expect.any(String));
    expect((await call("GET", "/api/github/connections", { token })).json.data).toEqual([disconnected.json]);
    const reconnected = (await claim(token, "conn-org")).connection;
    expect(reconnected.status).toBe(201);
    expect(reconnected.json).toMatchObject({ id: created.json.id, disconnected_at: null });
  });

  it("OP-REPO-6: without a GitHub App the platform answers 503 github.not_configured to a connect, and lists configured: false", async () => {
    const unconfigured = { ...testEnv, GITHUB_APP_ID: undefined, GITHUB_APP_PRIVATE_KEY: undefined };
    const send = async (method: string, body?: unknown) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(
        new Request("http://api.test/api/github/connections", {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        }),
        unconfigured,
        ctx,
      );
      const json = (await response.json()) as any;
      await waitOnExecutionContext(ctx);
      return { status: response.status, json };
    };
    const refused = await send("POST", { installation_id: 1001, code: "abc", state: "n.1.s" });
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe("github.not_configured");
    expect((await send("GET")).json.configured).toBe(false);
  });
});

describe("guild repositories (OP-REPO-6)", () => {
  let token: string;
  let guildId: string;
  let organisationId: string;
  let connectionId: string;
  beforeAll(async () => {
    ({ token, guildId, organisationId } = await seedGuild("Repositories"));
    await account("repo-org", ["widgets", "gadgets", "hidden"]);
    connectionId = (await claim(token, "repo-org", ["widgets", "gadgets"])).connection.json.id;
  });

  it("OP-REPO-6: a repository through a connection and a public one are added, listed with their folder and a clone URL under the platform's git base", async () => {
    const before = await mintedTokens();
    const widgets = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "repo-org/widgets", connection_id: connectionId } });
    expect(widgets.status).toBe(201);
    expect(widgets.json).toMatchObject({
      guild_id: guildId,
      full_name: "repo-org/widgets",
      name: "widgets",
      default_branch: "main",
      connection_id: connectionId,
      clone_url: `${testEnv.GITHUB_GIT_URL}/repo-org/widgets.git`,
    });
    const pub = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "someone/open-lib", default_branch: "develop" } });
    expect(pub.status).toBe(201);
    expect(pub.json).toMatchObject({ connection_id: null, name: "open-lib", default_branch: "develop" });
    expect((await call("GET", `/api/guilds/${guildId}/repositories`, { token })).json.data).toEqual([widgets.json, pub.json]);

    // Adding through a connection minted a token to prove access: it is in no answer and no row.
    const minted = (await mintedTokens()).filter((t) => !before.includes(t));
    expect(minted).toHaveLength(1);
    const rows = await withDb(async (db) => [
      await db.select().from(guildRepositories).where(eq(guildRepositories.guildId, guildId)),
      await db.select().from(githubConnections).where(eq(githubConnections.organisationId, organisationId)),
    ]);
    for (const text of [JSON.stringify(widgets.json), JSON.stringify(rows)]) expect(text).not.toContain(minted[0]);
  });

  it("OP-REPO-6: a repository the installation does not reach is 422 github.repository_unreachable naming it; nothing is added", async () => {
    const res = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "repo-org/hidden", connection_id: connectionId } });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: "github.repository_unreachable", details: { field: "full_name", repository: "hidden" } });
    expect(res.json.error.message).toContain("hidden");
    const names = (await call("GET", `/api/guilds/${guildId}/repositories`, { token })).json.data.map((r: { full_name: string }) => r.full_name);
    expect(names).not.toContain("repo-org/hidden");
  });

  it("OP-REPO-6: bad fields are 422 naming each; a repository of another account than the connection's is refused", async () => {
    for (const full_name of ["widgets", "repo-org/widgets.git", "repo-org/..", "a/b/c", "-bad/x", "repo-org/has space"]) {
      const res = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name } });
      expect(res.status, full_name).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["full_name"]);
    }
    const branch = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "x/y", default_branch: "a..b" } });
    expect(branch.json.error.details.fields[0].field).toBe("default_branch");
    const unknown = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "x/y", connection_id: crypto.randomUUID() } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.details.fields[0].field).toBe("connection_id");
    const otherAccount = await call("POST", `/api/guilds/${guildId}/repositories`, {
      token,
      body: { full_name: "elsewhere/gadgets", connection_id: connectionId },
    });
    expect(otherAccount.status).toBe(422);
    expect(otherAccount.json.error.details.fields[0]).toMatchObject({ field: "full_name" });
    expect(otherAccount.json.error.message).toContain("repo-org");
  });

  it("OP-REPO-6: the same repository twice is 409 repository.exists; another one cloning into the same folder is 409 repository.name_taken", async () => {
    await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "owner-a/shared" } });
    const twice = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "owner-a/shared" } });
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe("repository.exists");
    const clash = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "owner-b/Shared" } });
    expect(clash.status).toBe(409);
    expect(clash.json.error.code).toBe("repository.name_taken");
  });

  it("OP-REPO-6 / TASK-037: a removed repository is gone, its tasks' volumes and its seed with it; removing it again is 404", async () => {
    const added = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "owner-c/temp" } });
    const kept = await call("POST", `/api/guilds/${guildId}/repositories`, { token, body: { full_name: "owner-c/kept" } });
    const homes = (env as unknown as Env).SANDBOX_HOMES;
    const gone = [repositorySeedKey(added.json.id), volumeObjectKey(added.json.id, "TEMP-1"), volumeObjectKey(added.json.id, "TEMP-2")];
    const other = volumeObjectKey(kept.json.id, "KEPT-1");
    for (const key of [...gone, other]) await homes.put(key, "a volume");
    expect((await call("DELETE", `/api/repositories/${added.json.id}`, { token })).status).toBe(204);
    for (const key of gone) expect(await homes.head(key), key).toBeNull();
    expect(await homes.head(other)).not.toBeNull();
    expect((await call("GET", `/api/guilds/${guildId}/repositories`, { token })).json.data.map((r: { id: string }) => r.id)).not.toContain(added.json.id);
    expect((await call("DELETE", `/api/repositories/${added.json.id}`, { token })).status).toBe(404);
  });

  it("OP-REPO-6: another organisation sees 404 for the guild's repositories, the repository and the connection", async () => {
    const other = await seedGuild("Other org");
    const repo = (await call("GET", `/api/guilds/${guildId}/repositories`, { token })).json.data[0];
    for (const [method, path, body] of [
      ["GET", `/api/guilds/${guildId}/repositories`],
      ["POST", `/api/guilds/${guildId}/repositories`, { full_name: "x/y" }],
      ["DELETE", `/api/repositories/${repo.id}`],
      ["DELETE", `/api/github/connections/${connectionId}`],
    ] as const) {
      const res = await call(method, path, { token: other.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // Its own guild cannot use this organisation's connection either.
    const borrowed = await call("POST", `/api/guilds/${other.guildId}/repositories`, {
      token: other.token,
      body: { full_name: "repo-org/gadgets", connection_id: connectionId },
    });
    expect(borrowed.status).toBe(422);
    expect((await call("GET", "/api/github/connections", { token: other.token })).json.data).toEqual([]);
  });

  it("REPO-004: repositoriesForGeneration gives each repository its folder, clone URL and connection; a disconnected one stays, marked", async () => {
    const { guildId: g, token: t } = await seedGuild("Generation");
    await account("gen-org", ["svc"]);
    const conn = (await claim(t, "gen-org", ["svc"])).connection.json;
    await call("POST", `/api/guilds/${g}/repositories`, { token: t, body: { full_name: "gen-org/svc", connection_id: conn.id, default_branch: "trunk" } });
    await call("POST", `/api/guilds/${g}/repositories`, { token: t, body: { full_name: "public/docs" } });
    await call("DELETE", `/api/github/connections/${conn.id}`, { token: t });
    const repos = await withDb((db) => repositoriesForGeneration(db, g, testEnv.GITHUB_GIT_URL));
    expect(repos).toEqual([
      {
        id: expect.any(String),
        full_name: "gen-org/svc",
        name: "svc",
        default_branch: "trunk",
        clone_url: `${testEnv.GITHUB_GIT_URL}/gen-org/svc.git`,
        connection: { id: conn.id, installation_id: conn.installation_id, disconnected: true },
      },
      {
        id: expect.any(String),
        full_name: "public/docs",
        name: "docs",
        default_branch: "main",
        clone_url: `${testEnv.GITHUB_GIT_URL}/public/docs.git`,
        connection: null,
      },
    ]);
    expect((await withDb((db) => repositoriesForGeneration(db, g)))[1]!.clone_url).toBe("https://github.com/public/docs.git");
  });
});
