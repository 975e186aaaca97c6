import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { messages } from "../../core/db/schema";
import { newAgent, rows, script, settled, toolCall } from "../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../test/workerd/seed";

// mock-model prices: input 1, output 2 USD per million tokens.
const reply = (prompt: number, completion: number, last = false) => ({
  ...(last ? { content: "done" } : { tool_calls: [toolCall("note_list", {})] }),
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});

/** A run of a new agent whose replies are priced as given; its assistant rows' seqs in order. */
async function spend(token: string, guildId: string, replies: Array<[number, number]>) {
  const agent = await newAgent(token, guildId);
  await script(
    agent.model,
    replies.map(([p, c], i) => reply(p, c, i === replies.length - 1)),
  );
  const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
  await settled(token, run.id);
  const seqs = (await rows(token, run.id)).filter((r) => r.role === "assistant").map((r) => r.seq);
  expect(seqs).toHaveLength(replies.length);
  return { agent, runId: run.id as string, seqs };
}

/** Moves a committed row to another moment: days cannot pass in a test. */
async function backdate(runId: string, seq: number, at: string) {
  const { db, close } = openDatabase(env);
  try {
    await db
      .update(messages)
      .set({ createdAt: new Date(at) })
      .where(and(eq(messages.runId, runId), eq(messages.seq, seq)));
  } finally {
    await close();
  }
}

const today = () => new Date().toISOString().slice(0, 10);

describe("usage reports: summary and daily series", () => {
  let token: string;
  let guildId: string;
  let organisationId: string;
  let first: Awaited<ReturnType<typeof spend>>;
  let second: Awaited<ReturnType<typeof spend>>;
  let idle: { id: string };
  let otherGuild: string;

  beforeAll(async () => {
    ({ token, guildId, organisationId } = await seedGuild("Reports"));
    otherGuild = (await call("POST", "/api/guilds", { token, body: { name: "Second guild" } })).json.id;
    // $0.002, $0.003 and $0.0005, moved to 31 January, 1 and 3 February 2026; $0.004 today, in the other guild.
    [first, second, idle] = await Promise.all([
      spend(token, guildId, [
        [1000, 500],
        [1000, 1000],
        [500, 0],
      ]),
      spend(token, otherGuild, [[2000, 1000]]),
      newAgent(token, guildId),
    ]);
    await backdate(first.runId, first.seqs[0]!, "2026-01-31T23:59:59.000Z");
    await backdate(first.runId, first.seqs[1]!, "2026-02-01T00:00:00.000Z");
    await backdate(first.runId, first.seqs[2]!, "2026-02-03T12:00:00.000Z");
  }, 60_000);

  it("USAGE-UI: the daily series has every UTC day of the range, zeros where nothing was used, and each day's month-to-date cost", async () => {
    const res = await call("GET", `/api/usage/daily?scope=org&from=2026-01-30&to=2026-02-04`, { token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ scope: "org", id: organisationId, from: "2026-01-30", to: "2026-02-04", days: 6 });
    const days = res.json.data as Array<Record<string, unknown>>;
    expect(days.map((d) => d.date)).toEqual(["2026-01-30", "2026-01-31", "2026-02-01", "2026-02-02", "2026-02-03", "2026-02-04"]);
    expect(days.map((d) => d.cost_usd)).toEqual(["0.000000", "0.002000", "0.003000", "0.000000", "0.000500", "0.000000"]);
    expect(days.map((d) => d.calls)).toEqual([0, 1, 1, 0, 1, 0]);
    expect(days[1]).toMatchObject({ input_tokens: 1000, output_tokens: 500, cached_input_tokens: 0, reasoning_tokens: 0 });
    // The month-to-date line starts again on the first of the month.
    expect(days.map((d) => d.month_to_date_cost_usd)).toEqual(["0.000000", "0.002000", "0.003000", "0.003000", "0.003500", "0.003500"]);
  });

  it("USAGE-UI: a range starting mid-month still counts the month's earlier days in month-to-date", async () => {
    const res = await call("GET", `/api/usage/daily?scope=agent&id=${first.agent.id}&from=2026-02-02&to=2026-02-03`, { token });
    expect(res.json.data).toEqual([
      expect.objectContaining({ date: "2026-02-02", cost_usd: "0.000000", calls: 0, month_to_date_cost_usd: "0.003000" }),
      expect.objectContaining({ date: "2026-02-03", cost_usd: "0.000500", calls: 1, month_to_date_cost_usd: "0.003500" }),
    ]);
  });

  it("USAGE-UI: the series is scoped to the guild or agent asked for; by default it is this month to date", async () => {
    const guildToday = await call("GET", `/api/usage/daily?scope=guild&id=${otherGuild}`, { token });
    expect(guildToday.status).toBe(200);
    expect(guildToday.json.from).toBe(`${today().slice(0, 7)}-01`);
    expect(guildToday.json.to).toBe(today());
    expect(guildToday.json.data).toHaveLength(guildToday.json.days);
    expect(guildToday.json.data.at(-1)).toMatchObject({ date: today(), cost_usd: "0.004000", calls: 1, input_tokens: 2000, output_tokens: 1000 });
    expect(guildToday.json.data.slice(0, -1).every((d: { calls: number }) => d.calls === 0)).toBe(true);
    const firstGuild = await call("GET", `/api/usage/daily?scope=guild&id=${guildId}&from=2026-02-01&to=2026-02-01`, { token });
    expect(firstGuild.json.data).toEqual([expect.objectContaining({ cost_usd: "0.003000" })]);
    const idleAgent = await call("GET", `/api/usage/daily?scope=agent&id=${idle.id}&from=2026-01-30&to=2026-02-04`, { token });
    expect(idleAgent.json.data.map((d: { cost_usd: string }) => d.cost_usd)).toEqual(Array(6).fill("0.000000"));
  });

  it("USAGE-UI: the summary gives totals by guild and by agent, with names, in one request", async () => {
    const res = await call("GET", "/api/usage/summary?from=2026-01-01&to=2026-02-28", { token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ from: "2026-01-01", to: "2026-02-28", days: 59 });
    expect(res.json.totals).toMatchObject({ cost_usd: "0.005500", calls: 3, input_tokens: 2500, output_tokens: 1500 });
    expect(res.json.guilds).toEqual([
      expect.objectContaining({ id: guildId, name: "Guild", cost_usd: "0.005500", calls: 3, all_time_cost_usd: "0.005500" }),
      expect.objectContaining({ id: otherGuild, name: "Second guild", cost_usd: "0.000000", calls: 0, all_time_cost_usd: "0.004000" }),
    ]);
    expect(res.json.agents).toHaveLength(3);
    expect(res.json.agents[0]).toMatchObject({ id: first.agent.id, name: "Agent", guild_id: guildId, cost_usd: "0.005500", calls: 3 });
    expect(res.json.agents.find((a: { id: string }) => a.id === idle.id)).toMatchObject({ cost_usd: "0.000000", calls: 0, all_time_cost_usd: "0.000000" });

    const thisMonth = (await call("GET", "/api/usage/summary", { token })).json;
    expect(thisMonth.totals).toMatchObject({ cost_usd: "0.004000", calls: 1 });
    expect(thisMonth.agents[0]).toMatchObject({ id: second.agent.id, cost_usd: "0.004000", all_time_cost_usd: "0.004000" });
    expect(thisMonth.guilds[0]).toMatchObject({ id: otherGuild, cost_usd: "0.004000" });
  });

  it("USAGE-UI: bad dates, from after to, a range over 366 days and an unknown scope are 422 naming the parameter", async () => {
    const field = async (path: string) => {
      const res = await call("GET", path, { token });
      expect(res.status, path).toBe(422);
      expect(res.json.error.code).toBe("validation.failed");
      return (res.json.error.details.fields as Array<{ field: string }>).map((f) => f.field);
    };
    expect(await field("/api/usage/daily?scope=org&from=2026-02-30")).toEqual(["from"]);
    expect(await field("/api/usage/summary?to=tomorrow")).toEqual(["to"]);
    expect(await field("/api/usage/summary?from=2026-03-01&to=2026-02-01")).toEqual(["from"]);
    expect(await field("/api/usage/daily?scope=org&from=2024-01-01&to=2025-01-01")).toEqual(["to"]);
    expect(await field("/api/usage/daily?scope=team")).toEqual(["scope"]);
    expect(await field("/api/usage/daily?from=2026-01-01")).toEqual(["scope"]);
    expect(await field("/api/usage/daily?scope=agent")).toEqual(["id"]);
    expect(await field("/api/usage/daily?scope=guild&id=nope")).toEqual(["id"]);
    expect(await field("/api/usage/summary?scope=org")).toEqual(["scope"]);
  });

  it("USAGE-UI: another organisation's agent, guild or organisation id is 404, and its usage never shows", async () => {
    const { token: other, organisation_id: otherOrg } = await seedOrganisation("Elsewhere");
    const theirGuild = (await call("POST", "/api/guilds", { token: other, body: { name: "Theirs" } })).json.id;
    const theirs = await spend(other, theirGuild, [[1000, 0]]);
    expect((await call("GET", `/api/usage/daily?scope=agent&id=${theirs.agent.id}`, { token })).status).toBe(404);
    expect((await call("GET", `/api/usage/daily?scope=guild&id=${theirGuild}`, { token })).status).toBe(404);
    expect((await call("GET", `/api/usage/daily?scope=org&id=${otherOrg}`, { token })).status).toBe(404);
    expect((await call("GET", `/api/usage/daily?scope=org&id=${organisationId}&from=${today()}`, { token })).json.data[0].cost_usd).toBe("0.004000");
    const summary = (await call("GET", "/api/usage/summary", { token })).json;
    expect(summary.agents.map((a: { id: string }) => a.id)).not.toContain(theirs.agent.id);
    expect(summary.guilds.map((g: { id: string }) => g.id)).not.toContain(theirGuild);
    expect(summary.totals.cost_usd).toBe("0.004000");
  });

  it("USAGE-UI: the API document describes both reports with their query parameters, answers and errors", async () => {
    const doc = (await call("GET", "/api/openapi.json")).json;
    const summary = doc.paths["/api/usage/summary"].get;
    const daily = doc.paths["/api/usage/daily"].get;
    expect([summary.operationId, daily.operationId]).toEqual(["getUsageSummary", "getDailyUsage"]);
    expect(summary.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["from", "to"]);
    expect(daily.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["from", "id", "scope", "to"]);
    expect(Object.keys(daily.responses)).toEqual(expect.arrayContaining(["200", "401", "404", "422"]));
    expect(JSON.stringify(daily.responses["200"])).toContain("UsageDaily");
    expect(doc.components.schemas.UsageDay.properties.month_to_date_cost_usd).toBeDefined();
  });
});
