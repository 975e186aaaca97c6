import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../test/workerd/seed";
import { app } from "../app";

/** The real app with PLATFORM_OPERATOR_ORGANISATIONS naming the given organisations. */
async function asPlatform(operators: string, path: string, token: string) {
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`http://api.test${path}`, { headers: { authorization: `Bearer ${token}` } }),
    { ...(env as unknown as Env), PLATFORM_OPERATOR_ORGANISATIONS: operators },
    ctx,
  );
  const json = (await response.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: response.status, json };
}

describe("platform-wide usage (decision 0021)", () => {
  it("UI-010 / USAGE-003: a platform operator reads the global counters and this month's; another organisation gets 403 platform.forbidden and no figure", async () => {
    const { token, guildId, organisationId } = await seedGuild("Platform operator");
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "priced", usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await settled(token, run.id);
    const { token: other, organisation_id: otherId } = await seedOrganisation("Tenant");
    const operators = `${organisationId}, 00000000-0000-4000-8000-000000000000`;

    const read = await asPlatform(operators, "/api/platform/usage", token);
    expect(read.status).toBe(200);
    const org = (await call("GET", "/api/usage?scope=org", { token })).json;
    // Other tests' replies count too: the platform's figures hold at least this organisation's.
    expect(read.json.totals.calls).toBeGreaterThanOrEqual(1);
    expect(Number(read.json.totals.cost_usd)).toBeGreaterThanOrEqual(Number(org.totals.cost_usd));
    expect(read.json.totals.input_tokens).toBeGreaterThanOrEqual(1000);
    expect(read.json.month).toMatchObject({ month: org.month.month, cost_usd: expect.stringMatching(/^\d+\.\d{6}$/) });
    expect(Number(read.json.month.cost_usd)).toBeGreaterThanOrEqual(Number(org.month.cost_usd));
    expect(read.json.month.organisations).toBeGreaterThanOrEqual(1);
    expect((await asPlatform(operators, "/api/organisation", token)).json.platform_operator).toBe(true);

    const refused = await asPlatform(operators, "/api/platform/usage", other);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("platform.forbidden");
    expect(JSON.stringify(refused.json)).not.toMatch(/cost_usd|tokens|calls/);
    expect((await asPlatform(operators, "/api/organisation", other)).json.platform_operator).toBe(false);
    // Unset (the test Worker's own setting), nobody is one.
    expect((await call("GET", "/api/platform/usage", { token })).status).toBe(403);
    expect((await call("GET", "/api/organisation", { token })).json.platform_operator).toBe(false);
    expect((await asPlatform(otherId, "/api/platform/usage", other)).status).toBe(200);
    expect((await call("GET", "/api/platform/usage")).status).toBe(401);
  });
});
