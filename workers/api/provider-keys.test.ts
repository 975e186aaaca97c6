import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase } from "../../core/db/client";
import { organisations } from "../../core/db/schema";
import { modelRequests, newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../test/workerd/seed";

describe("provider keys, egress and cost integrity", () => {
  let token: string;
  let guildId: string;
  // The first file of a run may wait for the isolate and the database pool to warm up.
  beforeAll(async () => ({ token, guildId } = await seedGuild()), 30_000);
  afterEach(() => vi.restoreAllMocks());

  it("HARDEN-4: create and update refuse private, metadata and credentialed base URLs with a 422 naming model_base_url", async () => {
    for (const url of [
      "http://169.254.169.254/v1",
      "http://0xA9.254.169.254/v1",
      "http://[::ffff:10.0.0.1]/v1",
      "http://10.0.0.7/v1",
      "http://metadata.google.internal/v1",
      "https://user:secret@api.example.com/v1",
      "ftp://api.example.com/v1",
    ]) {
      const res = await call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "Egress", model_base_url: url } });
      expect(res.status, url).toBe(422);
      expect(res.json.error.code).toBe("validation.failed");
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual(["model_base_url"]);
    }
    const agent = await newAgent(token, guildId, { model_base_url: "https://llm.example.com/v1" });
    const patched = await call("PATCH", `/api/agents/${agent.id}`, { token, body: { model_base_url: "http://2852039166/v1", max_steps: 3 } });
    expect(patched.status).toBe(422);
    expect(patched.json.error.details.fields).toEqual([expect.objectContaining({ field: "model_base_url", message: expect.stringContaining("metadata") })]);
    // Nothing half-written.
    expect((await call("GET", `/api/agents/${agent.id}`, { token })).json).toMatchObject({ model_base_url: "https://llm.example.com/v1", max_steps: 40 });
    // Loopback is what this configuration allows (ALLOW_PRIVATE_MODEL_URLS=loopback), in any spelling.
    expect((await call("PATCH", `/api/agents/${agent.id}`, { token, body: { model_base_url: "http://2130706433:9/v1" } })).status).toBe(200);
  });

  it("USAGE-005: the operator's ceiling bounds the monthly limit; the organisation's token can lower it, never raise or change the ceiling", async () => {
    const { token: own, organisation_id } = await seedOrganisation("Capped");
    await setCeiling(organisation_id, "0.500000");
    const raised = await call("PATCH", "/api/organisation", { token: own, body: { monthly_spend_limit_usd: 1000 } });
    expect(raised.status).toBe(200);
    expect(raised.json).toMatchObject({ monthly_spend_limit_usd: "1000.000000", spend_ceiling_usd: "0.500000", limit_usd: "0.500000" });
    const lift = await call("PATCH", "/api/organisation", { token: own, body: { spend_ceiling_usd: null } });
    expect(lift.status).toBe(422);
    expect(lift.json.error.details.fields.map((f: { field: string }) => f.field)).toContain("spend_ceiling_usd");
    expect((await call("GET", "/api/organisation", { token: own })).json).toMatchObject({ spend_ceiling_usd: "0.500000", limit_usd: "0.500000" });
    expect((await call("GET", "/api/usage?scope=org", { token: own })).json.month).toMatchObject({
      limit_usd: "0.500000",
      monthly_spend_limit_usd: "1000.000000",
      spend_ceiling_usd: "0.500000",
    });
    const lowered = await call("PATCH", "/api/organisation", { token: own, body: { monthly_spend_limit_usd: 0.25 } });
    expect(lowered.json).toMatchObject({ limit_usd: "0.250000", spend_ceiling_usd: "0.500000" });
    await call("PATCH", "/api/organisation", { token: own, body: { monthly_spend_limit_usd: null } });

    const g = (await call("POST", "/api/guilds", { token: own, body: { name: "G" } })).json.id;
    const agent = await newAgent(own, g);
    await script(agent.model, [{ content: "first", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } }, { content: "second" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token: own, body: { message: "spend" } })).json;
    await settled(own, run.id);
    await call("POST", `/api/runs/${run.id}/messages`, { token: own, body: { content: "more" } });
    const after = await settled(own, run.id);
    expect(after.errors.at(-1)).toMatchObject({ code: "usage.spend_limit", message: expect.stringContaining("0.5 USD") });
    expect(await modelRequests(agent.model)).toHaveLength(1);
  });
});

async function setCeiling(organisationId: string, usd: string | null) {
  const { db, close } = openDatabase(env);
  try {
    await db.update(organisations).set({ spendCeilingUsd: usd }).where(eq(organisations.id, organisationId));
  } finally {
    await close();
  }
}
