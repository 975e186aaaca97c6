import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../core/db/client";
import { globalUsageTotals } from "../../../core/db/schema";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../../test/workerd/seed";

describe("usage and spend limit", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("USAGE-001 / USAGE-002 / USAGE-003 / USAGE-009: priced assistant rows carry cost_usd and metadata usage; counters of every scope add up", async () => {
    const globalBefore = await globalCalls();
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { tool_calls: [toolCall("note_list", {})], usage: { prompt_tokens: 1000, completion_tokens: 100 } },
      { content: "done", usage: { prompt_tokens: 2000, completion_tokens: 50, cached_tokens: 1000 } },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await settled(token, run.id);
    const transcript = await rows(token, run.id);
    // mock-model prices: input 1, cached 0.5, output 2 USD per million tokens.
    expect(transcript.filter((r) => r.role === "assistant").map((r) => r.cost_usd)).toEqual(["0.001200", "0.001600"]);
    expect(transcript.filter((r) => r.role !== "assistant").every((r) => r.cost_usd === null)).toBe(true);
    expect(transcript[2]!.metadata).toMatchObject({ usage: { prompt_tokens: 1000, completion_tokens: 100 }, cost_usd: 0.0012, latency_ms: expect.any(Number) });
    const agentUsage = (await call("GET", `/api/usage?scope=agent&id=${agent.id}`, { token })).json;
    expect(agentUsage.totals).toMatchObject({ input_tokens: 3000, output_tokens: 150, cached_input_tokens: 1000, calls: 2, cost_usd: "0.002800" });
    const guild = (await call("GET", `/api/usage?scope=guild&id=${guildId}`, { token })).json;
    expect(Number(guild.totals.cost_usd)).toBeGreaterThanOrEqual(0.0028);
    const org = (await call("GET", "/api/usage?scope=org", { token })).json;
    expect(Number(org.month.cost_usd)).toBeGreaterThanOrEqual(0.0028);
    expect(org.month.month).toBe(new Date().toISOString().slice(0, 7));
    expect((await globalCalls()) - globalBefore).toBeGreaterThanOrEqual(2);
    // Model metadata is never sent back to the model (RUN-016).
    const second = (await modelRequests(agent.model))[1]!.body.messages;
    expect(JSON.stringify(second)).not.toContain("latency_ms");
  });

  it("USAGE-005 / OP-USAGE-1: with the monthly limit reached, the generation is refused before any model call", async () => {
    const { token: other } = await seedOrganisation("Frugal");
    const g = (await call("POST", "/api/guilds", { token: other, body: { name: "G" } })).json.id;
    const agent = await newAgent(other, g);
    await script(agent.model, [{ content: "first", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } }, { content: "second" }]);
    expect((await call("PATCH", "/api/organisation", { token: other, body: { monthly_spend_limit_usd: 0.5 } })).json.monthly_spend_limit_usd).toBe("0.500000");
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token: other, body: { message: "spend" } })).json;
    await settled(other, run.id);
    await call("POST", `/api/runs/${run.id}/messages`, { token: other, body: { content: "more" } });
    const after = await settled(other, run.id);
    expect(after.errors.at(-1)).toMatchObject({ code: "usage.spend_limit" });
    expect(await modelRequests(agent.model)).toHaveLength(1);
    expect(after.status).toBe("active");
  });
});

async function globalCalls(): Promise<number> {
  const { db, close } = openDatabase(env);
  try {
    const [row] = await db.select().from(globalUsageTotals).where(eq(globalUsageTotals.scope, "global"));
    return row?.calls ?? 0;
  } finally {
    await close();
  }
}
