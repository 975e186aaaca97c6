import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

describe("what a run fixes at creation", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("RUN-001: runs are of three kinds, each of one agent; history filters by kind and refuses any other", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(run).toMatchObject({ kind: "direct", agent_id: agent.id });
    for (const kind of ["direct", "group", "schedule"]) {
      expect((await call("GET", `/api/agents/${agent.id}/runs?kind=${kind}`, { token })).status).toBe(200);
    }
    const bad = await call("GET", `/api/agents/${agent.id}/runs?kind=task`, { token });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.json.error)).toContain("kind");
  });
});
