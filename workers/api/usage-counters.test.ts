import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { agentUsage, guildUsage, messages, organisationUsage } from "../../core/db/schema";
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
      await db.update(guildUsage).set({ costUsd: "2.5" }).where(eq(guildUsage.guildId, guildId));
      await db.update(organisationUsage).set({ inputTokens: 42 }).where(eq(organisationUsage.organisationId, organisationId));
      const [agentTotals, guildTotals, orgTotals] = await read();
      expect(agentTotals).toMatchObject({ cost_usd: "1.500000", calls: 7 });
      expect(guildTotals).toMatchObject({ cost_usd: "2.500000" });
      expect(orgTotals).toMatchObject({ input_tokens: 42 });
    } finally {
      await close();
    }
  });
});
