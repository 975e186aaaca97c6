import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { connectionsForAgent } from "../../core/db/mcp";
import { mcpConnections } from "../../core/db/schema";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { McpConnection, McpConnectionPage } from "./mcp-connections.schema";
import { McpPresetList } from "./mcp-presets.schema";

/** The local MCP server of the test run (test/setup/database.ts), as the "local" preset names it. */
const mcpBase = () => (env as unknown as Env).MCP_PRESETS_URL_OVERRIDES!.replace(/^local=/, "").replace(/\/mcp$/, "");
const BEARER = "mcp-local-bearer-token-0123456789";
const ALL_TOOLS = ["echo", "add", "slow", "fail", "echo_header", "page_filler_1", "page_filler_2"];

async function withDb<T>(fn: (db: ReturnType<typeof openDatabase>["db"]) => Promise<T>): Promise<T> {
  const { db, close } = openDatabase(env);
  try {
    return await fn(db);
  } finally {
    await close();
  }
}

const admin = (path: string, body?: unknown) =>
  fetch(`${mcpBase()}/admin/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });

describe("MCP connections API", () => {
  let token: string;
  beforeAll(async () => ({ token } = await seedGuild()));

  it("creating a connection discovers its tools at once, through every page of tools/list, named <slug>__<tool>", async () => {
    const created = await call("POST", "/api/mcp/connections", { token, body: { slug: "local", url: `${mcpBase()}/mcp` } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({
      slug: "local",
      status: "ready",
      transport: "streamable_http",
      auth: { kind: "none", has_credential: false },
      last_error: null,
      from_server: { name: "guilds-local-mcp", instructions: expect.stringContaining("local stand-in") },
    });
    expect(created.json.tools.map((t: { name: string }) => t.name)).toEqual(ALL_TOOLS.map((n) => `local__${n}`));
    const add = created.json.tools.find((t: { remote_name: string }) => t.remote_name === "add");
    expect(add).toMatchObject({ enabled: true, position: 1, from_server: { title: "Add two numbers", output_schema: { required: ["sum"] } } });
    const id = created.json.id as string;
    // The answers match their documented schemas.
    expect(() => McpConnection.parse(created.json)).not.toThrow();
    expect((await call("GET", `/api/mcp/connections/${id}`, { token })).json).toEqual(created.json);
    const list = (await call("GET", "/api/mcp/connections", { token })).json;
    expect(() => McpConnectionPage.parse(list)).not.toThrow();
    expect(list.data.map((c: { id: string }) => c.id)).toContain(id);
    expect((await call("DELETE", `/api/mcp/connections/${id}`, { token })).status).toBe(204);
    expect((await call("GET", `/api/mcp/connections/${id}`, { token })).status).toBe(404);
  });

  it("a server with only the old HTTP+SSE transport is discovered over it, and the transport is remembered", async () => {
    const created = await call("POST", "/api/mcp/connections", { token, body: { slug: "old-sse", url: `${mcpBase()}/sse` } });
    expect(created.json).toMatchObject({ status: "ready", transport: "sse" });
    expect(created.json.tools).toHaveLength(ALL_TOOLS.length);
  });

  it("a bearer token is sealed, never returned; a refused token leaves the connection in error until a good one is set", async () => {
    const wrong = "wrong-token-never-returned-4f1c";
    const created = await call("POST", "/api/mcp/connections", {
      token,
      body: { slug: "bearer", url: `${mcpBase()}/bearer/mcp`, auth: { kind: "bearer", token: wrong } },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ status: "error", auth: { kind: "bearer", has_credential: true }, tools: [] });
    expect(created.json.last_error).toContain("refused the connection's credentials");
    expect(JSON.stringify(created.json)).not.toContain(wrong);
    const row = await withDb(async (db) => (await db.select().from(mcpConnections).where(eq(mcpConnections.id, created.json.id)))[0]!);
    expect(row.credentialCiphertext).toBeTruthy();
    expect(atob(row.credentialCiphertext!)).not.toContain(wrong);
    const fixed = await call("PATCH", `/api/mcp/connections/${created.json.id}`, { token, body: { token: BEARER } });
    expect(fixed.status).toBe(200);
    expect(fixed.json).toMatchObject({ status: "ready", last_error: null });
    expect(JSON.stringify(fixed.json)).not.toContain(BEARER);
    const none = await call("POST", "/api/mcp/connections", { token, body: { slug: "no-token", url: `${mcpBase()}/mcp` } });
    const refused = await call("PATCH", `/api/mcp/connections/${none.json.id}`, { token, body: { token: "x" } });
    expect(refused.status).toBe(422);
    expect(refused.json.error.details.fields[0].field).toBe("token");
  });

  it("an OAuth connection is stored waiting for authorisation; refresh says so", async () => {
    const created = await call("POST", "/api/mcp/connections", { token, body: { slug: "oauth", url: `${mcpBase()}/mcp`, auth: { kind: "oauth" } } });
    expect(created.json).toMatchObject({ status: "needs_auth", auth: { kind: "oauth", has_credential: false } });
    const refresh = await call("POST", `/api/mcp/connections/${created.json.id}/refresh`, { token });
    expect(refresh.status).toBe(409);
    expect(refresh.json.error.code).toBe("mcp_connection.needs_auth");
  });

  it("slugs: invalid ones are a 422 naming slug, a taken one 409, and the slug cannot be changed", async () => {
    for (const slug of ["Bad", "1x", "a__b", "x".repeat(25)]) {
      const res = await call("POST", "/api/mcp/connections", { token, body: { slug, url: `${mcpBase()}/mcp` } });
      expect(res.status, slug).toBe(422);
      expect(res.json.error.details.fields[0].field).toBe("slug");
    }
    const first = await call("POST", "/api/mcp/connections", { token, body: { slug: "taken", url: `${mcpBase()}/mcp` } });
    const again = await call("POST", "/api/mcp/connections", { token, body: { slug: "taken", url: `${mcpBase()}/mcp` } });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("mcp_connection.slug_taken");
    const rename = await call("PATCH", `/api/mcp/connections/${first.json.id}`, { token, body: { slug: "renamed" } });
    expect(rename.status).toBe(422);
  });

  it("egress: a URL the platform does not call is a 422 naming url; a redirect to one fails refresh with mcp.url_refused", async () => {
    for (const url of ["http://169.254.169.254/mcp", "http://10.0.0.7/mcp", "file:///etc/passwd", "http://user:pw@example.com/mcp"]) {
      const res = await call("POST", "/api/mcp/connections", { token, body: { slug: "egress", url } });
      expect(res.status, url).toBe(422);
      expect(res.json.error.details.fields[0].field).toBe("url");
    }
    const bounced = `${mcpBase()}/redirect?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data")}`;
    const created = await call("POST", "/api/mcp/connections", { token, body: { slug: "bounce", url: bounced } });
    expect(created.json).toMatchObject({ status: "error", last_error: expect.stringContaining("A redirect to http://169.254.169.254") });
    const refresh = await call("POST", `/api/mcp/connections/${created.json.id}/refresh`, { token });
    expect(refresh.status).toBe(422);
    expect(refresh.json.error.code).toBe("mcp.url_refused");
  });

  it("refresh: an unreachable server answers 502 and keeps the last tools; enabled flags survive a refresh", async () => {
    const created = await call("POST", "/api/mcp/connections", { token, body: { slug: "keep", url: `${mcpBase()}/mcp` } });
    const id = created.json.id as string;
    const off = await call("PATCH", `/api/mcp/connections/${id}`, { token, body: { tools: [{ remote_name: "slow", enabled: false }] } });
    expect(off.json.tools.find((t: { remote_name: string }) => t.remote_name === "slow").enabled).toBe(false);
    const unknown = await call("PATCH", `/api/mcp/connections/${id}`, { token, body: { tools: [{ remote_name: "nope", enabled: false }] } });
    expect(unknown.status).toBe(422);
    const refreshed = await call("POST", `/api/mcp/connections/${id}/refresh`, { token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.tools.find((t: { remote_name: string }) => t.remote_name === "slow").enabled).toBe(false);
    const moved = await call("PATCH", `/api/mcp/connections/${id}`, { token, body: { url: "http://127.0.0.1:1/mcp" } });
    expect(moved.json).toMatchObject({ status: "error", last_error: expect.stringContaining("could not be reached") });
    expect(moved.json.tools).toHaveLength(ALL_TOOLS.length);
    const failed = await call("POST", `/api/mcp/connections/${id}/refresh`, { token });
    expect(failed.status).toBe(502);
    expect(failed.json.error.code).toBe("mcp.unreachable");
  });

  it("a preset enables only its curated tools, and tools a refresh adds to a preset's server start disabled", async () => {
    const presets = await call("GET", "/api/mcp/presets", { token });
    expect(() => McpPresetList.parse(presets.json)).not.toThrow();
    expect(presets.json.data.map((p: { key: string }) => p.key)).toEqual(["coingecko", "alchemy", "wallet", "x", "twitterapi", "qonto", "dexpaprika", "local"]);
    const created = await call("POST", "/api/mcp/connections", { token, body: { slug: "preset", preset: "local" } });
    expect(created.json).toMatchObject({ status: "ready", preset: "local", url: `${mcpBase()}/mcp` });
    const enabled = (json: { tools: Array<{ remote_name: string; enabled: boolean }> }) => json.tools.filter((t) => t.enabled).map((t) => t.remote_name);
    expect(enabled(created.json)).toEqual(["echo", "add"]);
    const extra = { name: "preset_extra_tool", description: "added later", inputSchema: { type: "object" } };
    await admin("tools", { add: [extra] });
    try {
      const refreshed = await call("POST", `/api/mcp/connections/${created.json.id}/refresh`, { token });
      expect(refreshed.json.tools.map((t: { remote_name: string }) => t.remote_name)).toContain("preset_extra_tool");
      expect(enabled(refreshed.json)).toEqual(["echo", "add"]);
    } finally {
      await admin("tools", { remove: ["preset_extra_tool"] });
    }
    const unknown = await call("POST", "/api/mcp/connections", { token, body: { slug: "nopreset", preset: "nope" } });
    expect(unknown.json.error.details.fields[0].field).toBe("preset");
  });

  it("two remote tools that would share a name are refused at discovery, naming both", async () => {
    const created = await call("POST", "/api/mcp/connections", { token, body: { slug: "collide", url: `${mcpBase()}/mcp` } });
    const twins = [
      { name: "dup.name", description: "one", inputSchema: { type: "object" } },
      { name: "dup_name", description: "two", inputSchema: { type: "object" } },
    ];
    await admin("tools", { add: twins });
    try {
      const refresh = await call("POST", `/api/mcp/connections/${created.json.id}/refresh`, { token });
      expect(refresh.status).toBe(422);
      expect(refresh.json.error).toMatchObject({ code: "mcp.tool_name_collision", message: expect.stringMatching(/"dup\.name" and "dup_name"/) });
      // The last good tool list stays.
      expect((await call("GET", `/api/mcp/connections/${created.json.id}`, { token })).json.tools).toHaveLength(ALL_TOOLS.length);
    } finally {
      await admin("tools", { remove: ["dup.name", "dup_name"] });
    }
  });

  it("grants and org_wide decide which connections reach an agent, with their enabled tools in order", async () => {
    const org = await seedGuild("MCP reach");
    const other = await call("POST", "/api/guilds", { token: org.token, body: { name: "Other guild" } });
    const mine = await newAgent(org.token, org.guildId);
    const guildMate = await newAgent(org.token, org.guildId);
    const stranger = await newAgent(org.token, other.json.id);
    const make = async (slug: string, orgWide = false) =>
      (await call("POST", "/api/mcp/connections", { token: org.token, body: { slug, url: `${mcpBase()}/mcp`, org_wide: orgWide } })).json;
    const toAgent = await make("b-agent");
    const toGuild = await make("a-guild");
    await make("c-everyone", true);
    await make("d-nobody");
    await call("PATCH", `/api/mcp/connections/${toAgent.id}`, {
      token: org.token,
      body: { tools: ALL_TOOLS.slice(2).map((remote_name) => ({ remote_name, enabled: false })) },
    });
    const grant = await call("POST", `/api/mcp/connections/${toAgent.id}/grants`, { token: org.token, body: { agent_id: mine.id } });
    expect(grant.status).toBe(201);
    expect((await call("POST", `/api/mcp/connections/${toAgent.id}/grants`, { token: org.token, body: { agent_id: mine.id } })).status).toBe(409);
    await call("POST", `/api/mcp/connections/${toGuild.id}/grants`, { token: org.token, body: { guild_id: org.guildId } });
    const reach = (agentId: string) => withDb((db) => connectionsForAgent(db, agentId));
    const mineReach = await reach(mine.id);
    expect(mineReach.map((c) => c.slug)).toEqual(["a-guild", "b-agent", "c-everyone"]);
    expect(mineReach[1]!.tools.map((t) => t.name)).toEqual(["b-agent__echo", "b-agent__add"]);
    expect(mineReach[0]!.tools.map((t) => t.remoteName)).toEqual(ALL_TOOLS);
    expect((await reach(guildMate.id)).map((c) => c.slug)).toEqual(["a-guild", "c-everyone"]);
    expect((await reach(stranger.id)).map((c) => c.slug)).toEqual(["c-everyone"]);
    const revoked = await call("DELETE", `/api/mcp/connections/${toAgent.id}/grants/${grant.json.grants[0].id}`, { token: org.token });
    expect(revoked.json.grants).toEqual([]);
    expect((await reach(mine.id)).map((c) => c.slug)).toEqual(["a-guild", "c-everyone"]);
  });

  it("another organisation's connection, guild and agent are not found", async () => {
    const other = await seedGuild("Other MCP org");
    const otherAgent = await newAgent(other.token, other.guildId);
    const theirs = (await call("POST", "/api/mcp/connections", { token: other.token, body: { slug: "theirs", url: `${mcpBase()}/mcp` } })).json;
    for (const [method, path] of [
      ["GET", `/api/mcp/connections/${theirs.id}`],
      ["DELETE", `/api/mcp/connections/${theirs.id}`],
      ["POST", `/api/mcp/connections/${theirs.id}/refresh`],
    ] as const) {
      const res = await call(method, path, { token });
      expect(res.status, path).toBe(404);
      expect(res.json.error.code).toBe("mcp_connection.not_found");
    }
    expect((await call("GET", "/api/mcp/connections/not-a-uuid", { token })).json.error.code).toBe("mcp_connection.not_found");
    const mine = (await call("POST", "/api/mcp/connections", { token, body: { slug: "mine-x", url: `${mcpBase()}/mcp` } })).json;
    expect((await call("POST", `/api/mcp/connections/${mine.id}/grants`, { token, body: { guild_id: other.guildId } })).json.error.code).toBe(
      "guild.not_found",
    );
    expect((await call("POST", `/api/mcp/connections/${mine.id}/grants`, { token, body: { agent_id: otherAgent.id } })).json.error.code).toBe(
      "agent.not_found",
    );
    expect((await call("DELETE", `/api/mcp/connections/${mine.id}/grants/${crypto.randomUUID()}`, { token })).json.error.code).toBe("mcp_grant.not_found");
  });
});
