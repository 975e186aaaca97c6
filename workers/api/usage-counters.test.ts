import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { agentUsage, guildUsageShards, messages, organisationUsage, organisationUsageShards, orgMonthlyUsage } from "../../core/db/schema";
import { usageShard } from "../../core/db/usage-counters";
import { usageMonth } from "../../core/usage/pricing";
import { newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

describe("usage pages read the counters", () => {
  it("USAGE-004 / USAGE-006: the Usage figures come from the rollup counters; a row's cost_usd column does not change them", async () => {
    const { token, guildId, organisationId } = await seedGuild("Counting");
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "priced", usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await settled(token, run.id);
    const read = async () =>
      Promise.all(
        (["agent", "guild", "org"] as const).map(async (scope) => {
          const id = scope === "agent" ? `&id=${agent.id}` : scope === "guild" ? `&id=${guildId}` : "";
          return (await call("GET", `/api/usage?scope=${scope}${id}`, { token })).json.totals;
        }),
      );
    const before = await read();
    expect(before.map((t) => t.cost_usd)).toEqual(["0.001200", "0.001200", "0.001200"]);

    const { db, close } = openDatabase(env);
    try {
      // Per-row costs are for later accounting queries: the pages ignore them.
      await db.update(messages).set({ costUsd: "99" }).where(eq(messages.runId, run.id));
      expect(await read()).toEqual(before);
      // The counters are what the pages show.
      await db.update(agentUsage).set({ costUsd: "1.5", calls: 7 }).where(eq(agentUsage.agentId, agent.id));
      await db.update(guildUsageShards).set({ costUsd: "2.5" }).where(eq(guildUsageShards.guildId, guildId));
      await db.update(organisationUsageShards).set({ inputTokens: 42 }).where(eq(organisationUsageShards.organisationId, organisationId));
      const [agentTotals, guildTotals, orgTotals] = await read();
      expect(agentTotals).toMatchObject({ cost_usd: "1.500000", calls: 7 });
      expect(guildTotals).toMatchObject({ cost_usd: "2.500000" });
      expect(orgTotals).toMatchObject({ input_tokens: 42 });
    } finally {
      await close();
    }
  });

  it("USAGE-003: priced answers of many agents at the same instant each count once; a scope's totals are its shards and the rows of a release before them", {
    timeout: 60_000,
  }, async () => {
    const { token, guildId, organisationId } = await seedGuild("Sharded");
    const agents = await Promise.all(Array.from({ length: 8 }, () => newAgent(token, guildId)));
    await Promise.all(agents.map((a) => script(a.model, [{ content: "priced", usage: { prompt_tokens: 1000, completion_tokens: 100 } }])));
    const { db, close } = openDatabase(env);
    try {
      // What a release before the shards counted stays in the totals.
      await db.insert(organisationUsage).values({ organisationId, calls: 5, costUsd: "1.000000", inputTokens: 7 });
      await db.insert(orgMonthlyUsage).values({ organisationId, month: usageMonth(new Date()), calls: 5, costUsd: "1.000000" });
      const opened = await Promise.all(agents.map((a) => call("POST", `/api/agents/${a.id}/runs`, { token, body: { message: "go" } })));
      await Promise.all(opened.map((r) => settled(token, r.json.id)));

      const perAgent = await Promise.all(agents.map(async (a) => (await call("GET", `/api/usage?scope=agent&id=${a.id}`, { token })).json.totals));
      expect(perAgent.map((t) => t.calls)).toEqual(agents.map(() => 1));
      const spent = perAgent.reduce((sum, t) => sum + Math.round(Number(t.cost_usd) * 1e6), 0);
      expect(spent).toBeGreaterThan(0);
      const guild = (await call("GET", `/api/usage?scope=guild&id=${guildId}`, { token })).json.totals;
      expect(guild).toMatchObject({ calls: 8, input_tokens: 8000, output_tokens: 800, cost_usd: (spent / 1e6).toFixed(6) });
      const org = (await call("GET", "/api/usage?scope=org", { token })).json;
      expect(org.totals).toMatchObject({ calls: 13, input_tokens: 8007, cost_usd: ((spent + 1e6) / 1e6).toFixed(6) });
      expect(org.month).toMatchObject({ calls: 13, cost_usd: ((spent + 1e6) / 1e6).toFixed(6) });
      // Each agent added to its own shard's row: one row per shard its agents pick, not one for all.
      const rows = await db.select().from(guildUsageShards).where(eq(guildUsageShards.guildId, guildId));
      expect(rows.map((r) => r.shard).sort((x, y) => x - y)).toEqual([...new Set(agents.map((a) => usageShard(a.id)))].sort((x, y) => x - y));
      expect(rows.reduce((sum, r) => sum + r.calls, 0)).toBe(8);
    } finally {
      await close();
    }
  });
});
