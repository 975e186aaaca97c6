import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { O200K_ASSET_PATH } from "../../core/projection/rank-asset";
import { MESSAGE_OVERHEAD } from "../../core/projection/token-count";
import { agentIdle, guildWithAgent, script } from "./agents";
import { api } from "./http";

const run = promisify(execFile);

describe("local stack over HTTP", () => {
  it("reports the database up with the schema version at /api/health", async () => {
    const res = await api("GET", "/api/health", { token: null });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("ok");
    expect(res.json.database.reachable).toBe(true);
    expect(res.json.schema).toMatchObject({ up_to_date: true });
    expect(res.json.schema.version).toBe(res.json.schema.expected);
  });

  it("writes stack.json with the API URL, the operator token and the mock model URL", () => {
    const stack = JSON.parse(readFileSync(join(inject("stackStateDir"), "stack.json"), "utf8"));
    expect(stack).toMatchObject({ api_url: inject("apiUrl"), token: inject("token"), mock_model_url: inject("mockModelUrl") });
    expect(stack.api_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("keeps no trace of every invocation: wrangler dev's local trace store stays off (decision 0041)", async () => {
    // An invocation first, so a store that were on would have been written.
    expect((await api("GET", "/api/guilds")).status).toBe(200);
    const persisted = join(inject("stackStateDir"), "wrangler", "v3");
    expect(existsSync(join(persisted, "do"))).toBe(true);
    expect(existsSync(join(persisted, "observability"))).toBe(false);
  });

  it("runs guilds and agents end to end; a new agent uses the local default model", async () => {
    const guild = await api("POST", "/api/guilds", { body: { name: "E2E guild" } });
    expect(guild.status).toBe(201);
    const agent = await api("POST", `/api/guilds/${guild.json.id}/agents`, { body: { name: "E2E agent" } });
    expect(agent.status).toBe(201);
    expect(agent.json.model).toBe("mock-model");
    expect((await api("GET", `/api/agents?guild_id=${guild.json.id}`)).json.data).toHaveLength(1);
    expect((await api("DELETE", `/api/guilds/${guild.json.id}`)).status).toBe(204);
    expect((await api("GET", `/api/agents/${agent.json.id}`)).status).toBe(404);
  });

  it("npm run bootstrap -- --json finds the stack's database and creates a separate organisation", async () => {
    const { stdout } = await run("npm", ["run", "--silent", "bootstrap", "--", "--json"], {
      env: { ...process.env, STACK_STATE_DIR: inject("stackStateDir"), DATABASE_URL: "" },
    });
    const created = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(created).toEqual({ organisation_id: expect.any(String), token: expect.stringMatching(/^gld_/) });
    const theirs = await api("POST", "/api/guilds", { token: created.token, body: { name: "Theirs" } });
    expect(theirs.status).toBe(201);
    expect(theirs.json.organisation_id).toBe(created.organisation_id);
    expect((await api("GET", `/api/guilds/${theirs.json.id}`)).status).toBe(404);
  });

  it("answers the mock model's scripted replies at mock_model_url", async () => {
    const mock = inject("mockModelUrl");
    await fetch(`${mock}/__script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ replies: [{ content: "scripted" }] }),
    });
    const res = await fetch(`${mock}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "mock-model", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(((await res.json()) as any).choices[0].message.content).toBe("scripted");
  });

  it("serves the console page and the OpenAPI document from the same Worker", async () => {
    const page = await api("GET", "/", { token: null });
    expect(page.status).toBe(200);
    expect(page.text).toContain("<title>Guilds console</title>");
    expect(page.text).toContain('<div id="app"></div>');
    // Client-side routes fall back to the app; unknown API paths stay API errors.
    const deep = await api("GET", "/runs/00000000-0000-4000-8000-000000000000", { token: null });
    expect(deep.status).toBe(200);
    expect(deep.text).toContain('<div id="app"></div>');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.text)![1]!;
    expect((await api("GET", script, { token: null })).headers.get("content-type")).toContain("javascript");
    expect((await api("GET", "/api/no-such-route")).json.error.code).toBe("route.not_found");
    const doc = await api("GET", "/api/openapi.json", { token: null });
    expect(doc.json.paths["/api/agents/{id}"]).toBeDefined();
  });

  it("GEN-019: the agent object counts rows exactly, with the rank table the console build serves", async () => {
    const ranks = await api("GET", O200K_ASSET_PATH, { token: null });
    expect(ranks.status).toBe(200);
    expect(ranks.json.pat_str).toEqual(expect.any(String));
    const { agentId, model } = await guildWithAgent("E2E tokens");
    await script(model, [{ content: "hello world" }]);
    const run = await api("POST", `/api/agents/${agentId}/runs`, { body: { message: "hello world" } });
    expect(run.status, run.text).toBe(201);
    await agentIdle(agentId);
    const db = new pg.Client({ connectionString: inject("stackDatabaseUrl") });
    await db.connect();
    try {
      const { rows } = await db.query("select role, token_count from messages where run_id = $1 and role <> 'system' order by seq", [run.json.id]);
      // "hello world" is 2 tokens under o200k_base; the fallback estimate would say 4.
      expect(rows).toEqual([
        { role: "user", token_count: MESSAGE_OVERHEAD + 2 },
        { role: "assistant", token_count: MESSAGE_OVERHEAD + 2 },
      ]);
    } finally {
      await db.end();
    }
  });
});
