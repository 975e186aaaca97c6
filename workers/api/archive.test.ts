import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

describe("archived runs", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("RUN-024: history lists archived runs marked as such, and ?archived=true|false filters them", async () => {
    const agent = await newAgent(token, guildId);
    const kept = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const gone = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    await call("POST", `/api/runs/${gone.id}/archive`, { token });

    const all = (await call("GET", `/api/agents/${agent.id}/runs`, { token })).json.data as Array<{ id: string; archived: boolean }>;
    expect(all.map((r) => [r.id, r.archived])).toEqual([
      [gone.id, true],
      [kept.id, false],
    ]);
    const onlyArchived = (await call("GET", `/api/agents/${agent.id}/runs?archived=true`, { token })).json.data as Array<{ id: string }>;
    expect(onlyArchived.map((r) => r.id)).toEqual([gone.id]);
    const notArchived = (await call("GET", `/api/agents/${agent.id}/runs?archived=false`, { token })).json.data as Array<{ id: string }>;
    expect(notArchived.map((r) => r.id)).toEqual([kept.id]);

    const bad = await call("GET", `/api/agents/${agent.id}/runs?archived=maybe`, { token });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.json.error)).toContain("archived");
  });

  it("RUN-024: archiving a run of another organisation or an unknown run is 404", async () => {
    const other = await seedGuild();
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect((await call("POST", `/api/runs/${run.id}/archive`, { token: other.token })).status).toBe(404);
    expect((await call("POST", `/api/runs/${crypto.randomUUID()}/archive`, { token })).status).toBe(404);
  });
});
