import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, rows, script, settled } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

const VALUE = "secret-value-never-shown";

/** A secret stored through the API (so its value is sealed), granted as asked. */
async function addSecret(token: string, name: string, grant: { orgWide?: boolean; guildId?: string; agentId?: string }) {
  const created = await call("POST", "/api/secrets", {
    token,
    body: { name, value: VALUE, description: `${name} for tests`, org_wide: grant.orgWide ?? false },
  });
  expect(created.status).toBe(201);
  if (grant.guildId || grant.agentId) {
    const body = grant.guildId ? { guild_id: grant.guildId } : { agent_id: grant.agentId };
    expect((await call("POST", `/api/secrets/${created.json.id}/grants`, { token, body })).status).toBe(201);
  }
  return created.json.id as string;
}

describe("secrets in the run snapshot", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("EXACT-022 / SEC-001 / SEC-006: the snapshot and State list the secrets that reach the agent by name and description only", async () => {
    const agent = await newAgent(token, guildId);
    const other = await newAgent(token, guildId);
    await addSecret(token, "ORG_WIDE_KEY", { orgWide: true });
    await addSecret(token, "GUILD_KEY", { guildId });
    await addSecret(token, "AGENT_KEY", { agentId: agent.id });
    await addSecret(token, "OTHER_AGENT_KEY", { agentId: other.id });
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(run.snapshot.secrets.map((s: { name: string }) => s.name)).toEqual(["AGENT_KEY", "GUILD_KEY", "ORG_WIDE_KEY"]);
    expect(run.snapshot.secrets[0]).toEqual({ id: expect.any(String), name: "AGENT_KEY", description: "AGENT_KEY for tests" });
    const system = (await rows(token, run.id))[0]!.payload.content as string;
    expect(system).toContain("GUILD_KEY");
    expect(system).not.toContain("OTHER_AGENT_KEY");
    expect(JSON.stringify(run)).not.toContain(VALUE);
    expect(system).not.toContain(VALUE);
  });

  it("SEC-002 / SEC-003 / SEC-008 / EXACT-025: each generation re-resolves the list, so a later grant reaches an existing run", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const before = run.snapshot.secrets.map((s: { name: string }) => s.name);
    expect(before).not.toContain("LATE_GRANT");
    await addSecret(token, "LATE_GRANT", { agentId: agent.id });
    await script(agent.model, [{ content: "ok" }]);
    await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "go" } });
    await settled(token, run.id);
    const after = (await call("GET", `/api/runs/${run.id}`, { token })).json;
    expect(after.snapshot.secrets.map((s: { name: string }) => s.name)).toContain("LATE_GRANT");
    // Everything else in the snapshot stays as it was (EXACT-005).
    expect(after.snapshot.tools).toEqual(run.snapshot.tools);
    expect(after.snapshot.model).toEqual(run.snapshot.model);
  });
});
