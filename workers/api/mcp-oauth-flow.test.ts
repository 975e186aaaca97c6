import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { getConnection } from "../../core/db/mcp";
import { accessToken } from "../../core/mcp/oauth-access";
import { egressFetch, OAuthError } from "../../core/mcp/oauth-flow";
import { openOauthCredential } from "../../core/mcp/oauth-store";
import { keySetFrom } from "../../core/secrets/crypto";
import { newAgent, rows, script, settled, toolCall } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

/**
 * OAuth for an MCP connection end to end, against the local MCP server's authorization
 * server (scripts/mcp-server/oauth.ts) at /oauth/mcp: authorise, the redirect's code and state
 * posted back, the tools discovered with the token, refresh before expiry, and a refused
 * refresh leaving the connection needs_auth.
 */

const testEnv = env as unknown as Env;
const mcpBase = () => testEnv.MCP_PRESETS_URL_OVERRIDES!.replace(/^local=/, "").replace(/\/mcp$/, "");
const settings = (body: Record<string, unknown>) =>
  fetch(`${mcpBase()}/oauth/__settings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** Follows the authorization URL as the operator's browser would, approving at once. */
async function approve(authorizationUrl: string): Promise<{ code: string; state: string }> {
  const answer = await fetch(authorizationUrl, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe("http://api.test/mcp/callback");
  return { code: back.searchParams.get("code")!, state: back.searchParams.get("state")! };
}

async function stored(organisationId: string, id: string) {
  const { db, close } = openDatabase(testEnv);
  try {
    const row = (await getConnection(db, organisationId, id))!;
    const credential = await openOauthCredential(await keySetFrom(testEnv.SECRETS_KEK), row);
    return { row, credential };
  } finally {
    await close();
  }
}

describe("MCP OAuth against the local authorization server", () => {
  let org: { token: string; organisationId: string };
  let guildId: string;
  beforeAll(async () => {
    ({ guildId, ...org } = await seedGuild("MCP OAuth flow"));
    await settings({ auto_approve: true, access_token_ttl_s: 3600 });
  }, 60_000);

  async function authorised(slug: string) {
    const created = await call("POST", "/api/mcp/connections", { token: org.token, body: { slug, url: `${mcpBase()}/oauth/mcp`, auth: { kind: "oauth" } } });
    expect(created.status).toBe(201);
    expect(created.json.status).toBe("needs_auth");
    const started = await call("POST", `/api/mcp/connections/${created.json.id}/authorize`, { token: org.token });
    expect(started.status).toBe(201);
    const { code, state } = await approve(started.json.authorization_url);
    const done = await call("POST", "/api/mcp/oauth/callback", { token: org.token, body: { code, state } });
    return { id: created.json.id as string, started, done, code, state };
  }

  it("authorising discovers the tools; the tokens are sealed and in no API answer", async () => {
    const { id, started, done, code, state } = await authorised("oauthflow");
    const url = new URL(started.json.authorization_url);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(`${mcpBase()}/oauth/mcp`);
    expect(url.searchParams.get("redirect_uri")).toBe("http://api.test/mcp/callback");
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ connection_id: id, status: "ready", last_error: null });
    const read = await call("GET", `/api/mcp/connections/${id}`, { token: org.token });
    expect(read.json.status).toBe("ready");
    const origin = new URL(mcpBase()).origin;
    expect(read.json.auth).toEqual({
      kind: "oauth",
      has_credential: true,
      client: { id: expect.any(String), registered_by: "platform" },
      // Where it signs in, shown before the next authorisation.
      authorization_server: { issuer: expect.stringContaining(origin), authorization_origin: origin, token_origin: origin },
    });
    expect(read.json.tools.map((t: { remote_name: string }) => t.remote_name)).toContain("echo");
    const { row, credential } = await stored(org.organisationId, id);
    expect(credential?.access_token).toBeTruthy();
    expect(credential?.refresh_token).toBeTruthy();
    expect(row.oauth).toMatchObject({ issuer: `${mcpBase()}/oauth`, token_endpoint: `${mcpBase()}/oauth/token`, client_id: expect.any(String) });
    for (const text of [JSON.stringify(done.json), JSON.stringify(read.json), JSON.stringify(row.oauth)]) {
      expect(text).not.toContain(credential!.access_token);
      expect(text).not.toContain(credential!.refresh_token!);
    }
    // The code and state are spent: the same redirect a second time is refused.
    const again = await call("POST", "/api/mcp/oauth/callback", { token: org.token, body: { code, state } });
    expect(again.json.error.code).toBe("mcp_oauth.state_used");
  });

  it("EXACT-021: a server without dynamic registration takes the operator's client: its secret is sealed, sent to the token endpoint, and never answered", async () => {
    const closed = `${mcpBase()}/oauth-registered`;
    const post = (path: string, body: unknown) =>
      fetch(`${closed}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    await post("/__settings", { auto_approve: true });
    const client = { id: `operator-${crypto.randomUUID()}`, secret: `secret-${crypto.randomUUID()}` };
    expect((await post("/__clients", { client_id: client.id, client_secret: client.secret, redirect_uris: ["http://api.test/mcp/callback"] })).status).toBe(
      201,
    );
    // Without the operator's client there is nothing to authorise with, and the refusal says what to do.
    const bare = await call("POST", "/api/mcp/connections", { token: org.token, body: { slug: "closedbare", url: `${closed}/mcp`, auth: { kind: "oauth" } } });
    const refused = await call("POST", `/api/mcp/connections/${bare.json.id}/authorize`, { token: org.token });
    expect([refused.status, refused.json.error.code]).toEqual([422, "mcp_oauth.registration_failed"]);
    expect(refused.json.error.message).toContain("register a client with it and give it to the connection");

    const created = await call("POST", "/api/mcp/connections", {
      token: org.token,
      body: { slug: "closed", url: `${closed}/mcp`, auth: { kind: "oauth", client } },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ status: "needs_auth", auth: { kind: "oauth", client: { id: client.id, registered_by: "operator" } } });
    const started = await call("POST", `/api/mcp/connections/${created.json.id}/authorize`, { token: org.token });
    expect(started.status, JSON.stringify(started.json)).toBe(201);
    expect(new URL(started.json.authorization_url).searchParams.get("client_id")).toBe(client.id);
    const done = await call("POST", "/api/mcp/oauth/callback", { token: org.token, body: await approve(started.json.authorization_url) });
    expect(done.json).toMatchObject({ status: "ready", last_error: null });
    const stats = await (await fetch(`${closed}/__stats`)).json();
    expect(stats).toMatchObject({ registered: 0, basic_auth: 1, refused_clients: 0 });
    const read = await call("GET", `/api/mcp/connections/${created.json.id}`, { token: org.token });
    expect(read.json.auth.client).toEqual({ id: client.id, registered_by: "operator" });
    const { row, credential } = await stored(org.organisationId, created.json.id);
    expect(credential).toMatchObject({ client_secret: client.secret, access_token: expect.any(String) });
    for (const text of [
      JSON.stringify(created.json),
      JSON.stringify(started.json),
      JSON.stringify(done.json),
      JSON.stringify(read.json),
      JSON.stringify(row.oauth),
    ]) {
      expect(text).not.toContain(client.secret);
    }
  });

  it("two callbacks with one state at the same moment: exactly one authorises, the other is 409 mcp_oauth.state_used", async () => {
    const created = await call("POST", "/api/mcp/connections", {
      token: org.token,
      body: { slug: "oauthrace", url: `${mcpBase()}/oauth/mcp`, auth: { kind: "oauth" } },
    });
    const started = await call("POST", `/api/mcp/connections/${created.json.id}/authorize`, { token: org.token });
    const { code, state } = await approve(started.json.authorization_url);
    const answers = await Promise.all([
      call("POST", "/api/mcp/oauth/callback", { token: org.token, body: { code, state } }),
      call("POST", "/api/mcp/oauth/callback", { token: org.token, body: { code, state } }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)!.json.error.code).toBe("mcp_oauth.state_used");
  });

  it("a token with less than a minute left is refreshed before use, once even for two callers; a refused refresh leaves the connection needs_auth", async () => {
    await settings({ access_token_ttl_s: 30 });
    const { id } = await authorised("oauthrefresh");
    await settings({ access_token_ttl_s: 3600 });
    const before = await stored(org.organisationId, id);
    const keys = await keySetFrom(testEnv.SECRETS_KEK);
    const { db, close } = openDatabase(testEnv);
    try {
      const deps = { db, keys, fetch: egressFetch(new Set(["loopback"])) };
      const [one, two] = await Promise.all([accessToken(before.row, deps), accessToken(before.row, deps)]);
      expect(one).toBe(two);
      expect(one).not.toBe(before.credential!.access_token);
      const after = await stored(org.organisationId, id);
      expect(after.credential!.access_token).toBe(one);
      expect(after.credential!.refresh_token).not.toBe(before.credential!.refresh_token);
      // Good for an hour now: used as it is.
      expect(await accessToken(after.row, deps)).toBe(one);

      await settings({ access_token_ttl_s: 30 });
      const { id: second } = await authorised("oauthrevoked");
      await fetch(`${mcpBase()}/oauth/__revoke`, { method: "POST" });
      const due = await stored(org.organisationId, second);
      await expect(accessToken(due.row, deps)).rejects.toBeInstanceOf(OAuthError);
      const read = await call("GET", `/api/mcp/connections/${second}`, { token: org.token });
      expect(read.json.status).toBe("needs_auth");
      expect(read.json.last_error).toContain("invalid_grant");
    } finally {
      await close();
      await settings({ access_token_ttl_s: 3600 });
    }
  });

  it("ERR-011: a run's generation refreshes an OAuth token due within the minute before its calls, and the call goes through with the new one", async () => {
    await settings({ access_token_ttl_s: 30 });
    try {
      const { id } = await authorised("oauthrun");
      expect((await call("PATCH", `/api/mcp/connections/${id}`, { token: org.token, body: { org_wide: true } })).status).toBe(200);
      const before = await stored(org.organisationId, id);
      await settings({ access_token_ttl_s: 3600 });
      const agent = await newAgent(org.token, guildId);
      const run = await call("POST", `/api/agents/${agent.id}/runs`, { token: org.token, body: {} });
      expect(run.status, JSON.stringify(run.json)).toBe(201);
      await script(agent.model, [{ tool_calls: [toolCall("oauthrun__echo", { text: "through oauth" })] }, { content: "done" }]);
      expect((await call("POST", `/api/runs/${run.json.id}/messages`, { token: org.token, body: { content: "go" } })).status).toBe(202);
      await settled(org.token, run.json.id);
      const tool = (await rows(org.token, run.json.id)).find((r) => r.role === "tool")!;
      expect(JSON.stringify(tool.payload)).toContain("through oauth");
      expect(JSON.stringify(tool.payload)).not.toContain("ERROR");
      const after = await stored(org.organisationId, id);
      expect(after.credential!.access_token).not.toBe(before.credential!.access_token);
    } finally {
      await settings({ access_token_ttl_s: 3600 });
    }
  });
});
