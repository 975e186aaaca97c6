import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { agentUsage, globalUsageTotals, guildUsage, guildUsageShards, messages, runs } from "../../core/db/schema";
import { newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedOrganisation } from "../../test/workerd/seed";

describe("deleting a guild", () => {
  it("USAGE-008 / RUN-022: deleting a guild drops its counter row, its agents' counters, runs and messages; organisation, monthly and global totals stay", {
    timeout: 40_000,
  }, async () => {
    const { token } = await seedOrganisation("Deleting");
    const doomed = (await call("POST", "/api/guilds", { token, body: { name: "Doomed" } })).json.id as string;
    const kept = (await call("POST", "/api/guilds", { token, body: { name: "Kept" } })).json.id as string;
    const agent = await newAgent(token, doomed);
    const survivor = (await call("POST", `/api/guilds/${kept}/agents`, { token, body: { name: "Survivor" } })).json.id as string;
    await script(agent.model, [{ content: "spent", usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "spend" } })).json;
    const other = (await call("POST", `/api/agents/${survivor}/runs`, { token, body: {} })).json;
    await settled(token, run.id);

    const orgBefore = (await call("GET", "/api/usage?scope=org", { token })).json;
    expect(orgBefore.totals.calls).toBe(1);
    const { db, close } = openDatabase(env);
    try {
      // A counter row of a release before the shards: the totals still count it.
      await db.insert(guildUsage).values({ guildId: kept, calls: 3, costUsd: "0.25" });
      const globalBefore = await globalCost(db);
      expect((await call("DELETE", `/api/guilds/${doomed}`, { token })).status).toBe(204);

      expect(await db.select().from(guildUsageShards).where(eq(guildUsageShards.guildId, doomed))).toHaveLength(0);
      expect(await db.select().from(agentUsage).where(eq(agentUsage.agentId, agent.id))).toHaveLength(0);
      expect(await db.select().from(runs).where(eq(runs.id, run.id))).toHaveLength(0);
      expect(await db.select().from(messages).where(eq(messages.runId, run.id))).toHaveLength(0);
      expect((await call("GET", `/api/usage?scope=guild&id=${doomed}`, { token })).status).toBe(404);

      const orgAfter = (await call("GET", "/api/usage?scope=org", { token })).json;
      expect(orgAfter.totals).toEqual(orgBefore.totals);
      expect(orgAfter.month).toEqual(orgBefore.month);
      expect((await call("GET", `/api/usage?scope=guild&id=${kept}`, { token })).json.totals).toMatchObject({ calls: 3, cost_usd: "0.250000" });
      // Other tests add to the global row meanwhile; the deletion never takes from it.
      expect(await globalCost(db)).toBeGreaterThanOrEqual(globalBefore);
      expect((await call("GET", `/api/runs/${other.id}/messages`, { token })).json.data).toHaveLength(1);
    } finally {
      await close();
    }
  });
});

async function globalCost(db: ReturnType<typeof openDatabase>["db"]): Promise<number> {
  const [row] = await db.select().from(globalUsageTotals).where(eq(globalUsageTotals.scope, "global"));
  return Number(row?.costUsd ?? 0);
}
