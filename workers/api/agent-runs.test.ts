import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { runs } from "../../core/db/schema";
import { newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedOrganisation } from "../../test/workerd/seed";

describe("run history", () => {
  it("RUN-009 / OP-RUN-1: lists an agent's runs newest first with label, status and cost, filtered by kind", async () => {
    const { token } = await seedOrganisation();
    const guildId = (await call("POST", "/api/guilds", { token, body: { name: "G" } })).json.id;
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "hi", usage: { prompt_tokens: 1000, completion_tokens: 0 } }]);
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "Plan the week" } })).json;
    await settled(token, first.id);
    const second = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const list = await call("GET", `/api/agents/${agent.id}/runs`, { token });
    expect(list.status, JSON.stringify(list.json)).toBe(200);
    expect(list.json.data.map((r: { id: string }) => r.id)).toEqual([second.id, first.id]);
    expect(list.json.data[1]).toMatchObject({ kind: "direct", status: "active", label: "Plan the week", cost_usd: "0.001000" });
    expect(list.json.data[0]).toMatchObject({ label: "New chat", cost_usd: "0" });
    expect((await call("GET", `/api/agents/${agent.id}/runs?kind=schedule`, { token })).json.data).toEqual([]);
    expect((await call("GET", `/api/agents/${agent.id}/runs?kind=weird`, { token })).status).toBe(422);
  });

  it("RUN-009 / UI-CONV: History filters by status and by a case-insensitive title search, with % and _ taken literally, and pages within the filter", async () => {
    const { token } = await seedOrganisation();
    const guildId = (await call("POST", "/api/guilds", { token, body: { name: "G" } })).json.id;
    const agent = await newAgent(token, guildId);
    const titles = ["Weekly PLAN", "weekly plan b", "50% off_sale", "50x offXsale", "Budget"];
    const made: Record<string, string> = {};
    for (const title of titles) made[title] = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { title } })).json.id;
    // A completed run, as a finished wake-up leaves it.
    const { db, close } = openDatabase(env);
    const snapshot = (await db.select().from(runs).limit(1))[0]!.snapshot;
    const [done] = await db.insert(runs).values({ agentId: agent.id, kind: "schedule", status: "completed", title: "Weekly digest", snapshot }).returning();
    await close();
    const list = async (query: string) => {
      const res = await call("GET", `/api/agents/${agent.id}/runs?${query}`, { token });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json as { data: Array<{ id: string; title: string; status: string }>; next_cursor: string | null };
    };

    expect((await list("status=completed")).data.map((r) => r.id)).toEqual([done!.id]);
    expect((await list("status=active")).data.map((r) => r.title)).toEqual([...titles].reverse());
    expect((await list("q=weekly")).data.map((r) => r.title)).toEqual(["Weekly digest", "weekly plan b", "Weekly PLAN"]);
    expect((await list("q=WEEKLY&status=active")).data.map((r) => r.title)).toEqual(["weekly plan b", "Weekly PLAN"]);
    // The search's own wildcards match only themselves.
    expect((await list(`q=${encodeURIComponent("50% off_")}`)).data.map((r) => r.title)).toEqual(["50% off_sale"]);
    expect((await list("q=_")).data.map((r) => r.title)).toEqual(["50% off_sale"]);
    expect((await list(`q=${encodeURIComponent("\\")}`)).data).toEqual([]);
    // Paging stays inside the filter.
    const first = await list("q=weekly&limit=2");
    expect(first.data.map((r) => r.title)).toEqual(["Weekly digest", "weekly plan b"]);
    const second = await list(`q=weekly&limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(second).toEqual({ data: [expect.objectContaining({ id: made["Weekly PLAN"] })], next_cursor: null });

    const unknown = await call("GET", `/api/agents/${agent.id}/runs?status=failed`, { token });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error).toMatchObject({ code: "validation.failed", details: { fields: [expect.objectContaining({ field: "status" })] } });
    expect((await call("GET", `/api/agents/${agent.id}/runs?q=${"x".repeat(201)}`, { token })).status).toBe(422);
  });
});
