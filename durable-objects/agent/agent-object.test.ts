import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { objectOf } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import type { AgentObject } from "./agent-object";

const FAR = Date.UTC(2100, 0, 1);

describe("agent object through the API", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  const newAgent = async () => (await call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "A" } })).json.id as string;

  it("GET /api/agents/:id/status reports the lock and the pending deadlines of the agent's object", async () => {
    const id = await newAgent();
    await objectOf(id).setDeadline("probe:check", FAR);
    const status = await call("GET", `/api/agents/${id}/status`, { token });
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ agent_id: id, generating: false });
    expect(status.json.deadlines.map((d: { name: string }) => d.name)).toEqual(["probe:check"]);
  });

  it("deleting an agent clears its object, so none of its deadlines fires later", async () => {
    const id = await newAgent();
    await objectOf(id).setDeadline("probe:later", FAR);
    expect((await call("DELETE", `/api/agents/${id}`, { token })).status).toBe(204);
    expect(await objectOf(id).deadlines()).toEqual([]);
    expect(await runInDurableObject(objectOf(id), (_a: AgentObject, state) => state.storage.getAlarm())).toBeNull();
  });
});
