import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../../core/db/client";
import { secrets } from "../../../../core/db/schema";
import { MAX_SECRETS_PER_ORGANISATION } from "../../../../core/secrets/limit";
import { SECRET_VALUE_CANARY } from "../../../../test/setup/secret-canary";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../../test/workerd/agents";
import { call, seedGuild } from "../../../../test/workerd/seed";
import { openEvents } from "../../../../test/workerd/sse";

// Every response and SSE frame of these tests passes the canary check of the helpers (test/workerd/canary.ts).

/** Rows of the messages table, as text, that hold the value. */
async function storedRowsHolding(value: string): Promise<number> {
  const { db, close } = openDatabase(env);
  try {
    const result = await db.execute(
      sql`select count(*)::int as n from messages where payload::text like ${`%${value}%`} or metadata::text like ${`%${value}%`}`,
    );
    return (result.rows[0] as { n: number }).n;
  } finally {
    await close();
  }
}

/** One direct run: a message, the scripted replies, the generation settled; with its rows and events. */
async function directRun(token: string, agentId: string) {
  const run = (await call("POST", `/api/agents/${agentId}/runs`, { token, body: {} })).json;
  const { opened, events } = openEvents(token, run.id, (seen) => seen.some((e) => e.event === "status" && e.data.generating === false && e.data.status));
  await opened;
  expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "go" } })).status).toBe(202);
  await settled(token, run.id);
  return { runId: run.id as string, rows: await rows(token, run.id), events: await events };
}

describe("secret tools in a generation (SEC-011, SEC-012, OP-SEC-5, OP-SEC-6, OP-SEC-8)", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("OP-SEC-8 / SEC-011: secret_store's value never reaches the stored row, the stream, a response or the next prompt; the secret is the agent's", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { tool_calls: [toolCall("secret_store", { name: "SHOP_KEY", description: "The shop's API", value: SECRET_VALUE_CANARY })] },
      { content: "stored" },
    ]);
    const { rows: stored, events } = await directRun(token, agent.id);
    const assistant = stored.find((r) => r.role === "assistant" && r.payload.tool_calls)!;
    expect(JSON.parse(assistant.payload.tool_calls[0].function.arguments)).toEqual({ name: "SHOP_KEY", description: "The shop's API", value: "[redacted]" });
    expect(stored.find((r) => r.role === "tool")!.payload.content).toMatch(/^Stored secret SHOP_KEY \(created\)/);
    expect(events.some((e) => e.event === "message" && e.data.role === "assistant")).toBe(true);
    expect(await storedRowsHolding(SECRET_VALUE_CANARY)).toBe(0);
    // The second model call replays the stored row, not the value.
    const requests = await modelRequests(agent.model);
    expect(requests).toHaveLength(2);
    expect(JSON.stringify(requests[1]!.body)).not.toContain(SECRET_VALUE_CANARY);
    expect(JSON.stringify(requests[1]!.body)).toContain("[redacted]");
    const listed = (await call("GET", "/api/secrets", { token })).json.data.find((s: { name: string }) => s.name === "SHOP_KEY");
    expect(listed).toMatchObject({ org_wide: false, description: "The shop's API" });
    expect(listed.grants.map((g: { agent_id: string | null }) => g.agent_id)).toEqual([agent.id]);
  });

  it("OP-SEC-6: secret_store updates the agent's own secret, and refuses one that reaches anyone else", async () => {
    const agent = await newAgent(token, guildId);
    const shared = await call("POST", "/api/secrets", { token, body: { name: "TEAM_KEY", value: "team-value", org_wide: true } });
    await script(agent.model, [
      { tool_calls: [toolCall("secret_store", { name: "OWN_KEY", value: "first-value" })] },
      { tool_calls: [toolCall("secret_store", { name: "OWN_KEY", value: "second-value" })] },
      { tool_calls: [toolCall("secret_store", { name: "TEAM_KEY", value: "hijack-value" })] },
      { content: "done" },
    ]);
    const { rows: stored } = await directRun(token, agent.id);
    const results = stored.filter((r) => r.role === "tool").map((r) => r.payload.content as string);
    expect(results[0]).toMatch(/\(created\)/);
    expect(results[1]).toMatch(/\(updated\)/);
    expect(results[2]).toMatch(/^ERROR: A secret named TEAM_KEY already exists and is not yours alone/);
    const team = (await call("GET", `/api/secrets/${shared.json.id}`, { token })).json;
    expect(team.updated_at).toBe(shared.json.updated_at);
    expect(await storedRowsHolding("second-value")).toBe(0);
    expect(await storedRowsHolding("hijack-value")).toBe(0);
  });

  it("OP-SEC-1 / SEC-011: at the organisation's cap, secret_store answers an ERROR and creates nothing; replacing its own secret still works", async () => {
    const org = await seedGuild("Secret cap tools");
    const agent = await newAgent(org.token, org.guildId);
    await script(agent.model, [{ tool_calls: [toolCall("secret_store", { name: "OWN_KEY", value: "first-value" })] }, { content: "done" }]);
    await directRun(org.token, agent.id);
    const { db, close } = openDatabase(env);
    try {
      const filler = Array.from({ length: MAX_SECRETS_PER_ORGANISATION - 1 }, (_, i) => ({
        organisationId: org.organisationId,
        name: `FILLER_${i}`,
        ciphertext: "AAAA",
        iv: "AAAAAAAAAAAAAAAA",
      }));
      await db.insert(secrets).values(filler);
    } finally {
      await close();
    }
    await script(agent.model, [
      { tool_calls: [toolCall("secret_store", { name: "ONE_TOO_MANY", value: "refused-value" })] },
      { tool_calls: [toolCall("secret_store", { name: "OWN_KEY", value: "second-value" })] },
      { content: "done" },
    ]);
    const { rows: stored } = await directRun(org.token, agent.id);
    const results = stored.filter((r) => r.role === "tool").map((r) => r.payload.content as string);
    expect(results[0]).toMatch(new RegExp(`^ERROR: An organisation may have at most ${MAX_SECRETS_PER_ORGANISATION} secrets`));
    expect(results[1]).toMatch(/\(updated\)/);
    const names = (await call("GET", "/api/secrets?limit=200", { token: org.token })).json.data.map((s: { name: string }) => s.name);
    expect(names).not.toContain("ONE_TOO_MANY");
  });

  it("OP-SEC-5 / SEC-012: secret_request answers requested at once; the operator sees it pending, answers with a value never returned, and the agent holds the secret", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { tool_calls: [toolCall("secret_request", { name: "GITHUB_TOKEN", description: "GitHub", reason: "to open the pull request" })] },
      { content: "asked" },
    ]);
    const { runId, rows: stored } = await directRun(token, agent.id);
    const tool = stored.find((r) => r.role === "tool")!;
    expect(tool.payload.content).toMatch(/^requested: /);
    const pending = await call("GET", `/api/runs/${runId}/secret-requests`, { token });
    expect(pending.status).toBe(200);
    expect(pending.json.data).toEqual([
      expect.objectContaining({ seq: tool.seq, name: "GITHUB_TOKEN", description: "GitHub", reason: "to open the pull request", status: "pending" }),
    ]);
    const answered = await call("POST", `/api/runs/${runId}/secret-requests/${tool.seq}`, { token, body: { value: SECRET_VALUE_CANARY } });
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ seq: tool.seq, status: "answered" });
    expect(answered.headers.get("cache-control")).toBe("no-store");
    const secret = (await call("GET", `/api/secrets/${answered.json.secret_id}`, { token })).json;
    expect(secret).toMatchObject({ name: "GITHUB_TOKEN", org_wide: false });
    expect(secret.grants.map((g: { agent_id: string | null }) => g.agent_id)).toEqual([agent.id]);
    expect((await call("GET", `/api/runs/${runId}/secret-requests`, { token })).json.data[0].status).toBe("answered");
    // Only a request row can be answered.
    const other = await call("POST", `/api/runs/${runId}/secret-requests/${tool.seq - 1}`, { token, body: { value: "x-value" } });
    expect(other.status).toBe(404);
    expect(other.json.error.code).toBe("secret_request.not_found");
    const empty = await call("POST", `/api/runs/${runId}/secret-requests/${tool.seq}`, { token, body: { value: "" } });
    expect(empty.status).toBe(422);
    expect(await storedRowsHolding(SECRET_VALUE_CANARY)).toBe(0);
  });
});
