import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { agentUsage, guildUsageShards, messages, runs } from "../../core/db/schema";
import { call, seedOrganisation } from "../../test/workerd/seed";

describe("agents API", () => {
  let token: string;
  let guildId: string;

  beforeAll(async () => {
    ({ token } = await seedOrganisation());
    guildId = (await call("POST", "/api/guilds", { token, body: { name: "Guild" } })).json.id;
  });

  it("creates an agent with the spec's defaults (GEN-013, PROJ-004, SCRIPT-012, SCRIPT-046, SBX-016)", async () => {
    const res = await call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "Scout" } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: "Scout",
      guild_id: guildId,
      max_tool_calls: 50,
      max_input_tokens: 100000,
      keep_tool_result_generations: 1,
      projection_policy_version: 1,
      max_scripts: 10,
      scripting: true,
      browser: false,
      coding: false,
      memory: false,
      browser_language: "en-US",
      thinking_level: "off",
      max_steps: 40,
      model_base_url: null,
      archived_at: null,
    });
    expect(typeof res.json.model).toBe("string");
    expect(res.json.model.length).toBeGreaterThan(0);
  });

  it("keeps the values a body gives and changes only patched fields", async () => {
    const created = await call("POST", `/api/guilds/${guildId}/agents`, {
      token,
      body: { name: "Coder", coding: true, max_tool_calls: 120, model: "gpt-x", model_base_url: "https://llm.example.com/v1" },
    });
    expect(created.json).toMatchObject({ coding: true, max_tool_calls: 120, model: "gpt-x" });
    const patched = await call("PATCH", `/api/agents/${created.json.id}`, { token, body: { max_scripts: 3, memory: true } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ max_scripts: 3, memory: true, coding: true, max_tool_calls: 120 });
    const again = await call("GET", `/api/agents/${created.json.id}`, { token });
    expect(again.json.max_scripts).toBe(3);
  });

  it("lists agents newest first, filters by guild and pages with next_cursor", async () => {
    const other = (await call("POST", "/api/guilds", { token, body: { name: "Other" } })).json.id;
    const ids: string[] = [];
    for (const name of ["A1", "A2", "A3"]) {
      ids.push((await call("POST", `/api/guilds/${other}/agents`, { token, body: { name } })).json.id);
    }
    const first = await call("GET", `/api/agents?guild_id=${other}&limit=2`, { token });
    expect(first.json.data.map((a: { name: string }) => a.name)).toEqual(["A3", "A2"]);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await call("GET", `/api/agents?guild_id=${other}&limit=2&cursor=${first.json.next_cursor}`, { token });
    expect(second.json.data.map((a: { name: string }) => a.name)).toEqual(["A1"]);
    expect(second.json.next_cursor).toBeNull();
  });

  it("USAGE-007 / RUN-022: deleting an agent drops its runs, messages and counter row; the guild's totals stay", async () => {
    const agent = (await call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "Doomed" } })).json;
    const { db, close } = openDatabase(env);
    try {
      const [run] = await db.insert(runs).values({ agentId: agent.id, kind: "direct" }).returning();
      await db.insert(messages).values({ runId: run!.id, seq: 0, role: "system", payload: { role: "system", content: "x" } });
      await db.insert(agentUsage).values({ agentId: agent.id, calls: 1, costUsd: "0.5" });
      await db.insert(guildUsageShards).values({ guildId, shard: 0, calls: 1, costUsd: "0.5" }).onConflictDoNothing();
      expect((await call("DELETE", `/api/agents/${agent.id}`, { token })).status).toBe(204);
      expect(await db.select().from(runs).where(eq(runs.id, run!.id))).toHaveLength(0);
      expect(await db.select().from(messages).where(eq(messages.runId, run!.id))).toHaveLength(0);
      expect(await db.select().from(agentUsage).where(eq(agentUsage.agentId, agent.id))).toHaveLength(0);
      expect(await db.select().from(guildUsageShards).where(eq(guildUsageShards.guildId, guildId))).toHaveLength(1);
      expect((await call("GET", `/api/agents/${agent.id}`, { token })).status).toBe(404);
    } finally {
      await close();
    }
  });
});
