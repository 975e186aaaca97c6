import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

const toolNames = (run: { snapshot: { tools: string[] } }) => run.snapshot.tools;

describe("what a run fixes at creation", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("PROJ-009 / EXACT-009: the snapshot stores projection policy version 1 and the flags browser, coding, cli, scripting and memory", async () => {
    const agent = await newAgent(token, guildId, { memory: true, cli: false, scripting: false });
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(run.snapshot.model.projection_policy_version).toBe(1);
    expect(run.snapshot.flags).toMatchObject({ browser: false, coding: false, cli: false, scripting: false, memory: true });
    await call("PATCH", `/api/agents/${agent.id}`, { token, body: { memory: false, cli: true } });
    const later = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(later.snapshot.flags).toMatchObject({ cli: true, memory: false });
    expect((await call("GET", `/api/runs/${run.id}`, { token })).json.snapshot.flags).toMatchObject({ cli: false, memory: true });
  });

  it("EXACT-018: group_post is offered while its binding is on and not once it is off", async () => {
    const agent = await newAgent(token, guildId);
    const on = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(toolNames(on)).toContain("group_post");
    expect((await call("PATCH", `/api/agents/${agent.id}`, { token, body: { group_post: false } })).status).toBe(200);
    const off = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(toolNames(off)).not.toContain("group_post");
  });

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

  it("EXACT-006 / ERR-006: a provider failure is not retried: one request, the error recorded, the run usable", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ status: 503 }, { content: "after the failure" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "try" } })).json;
    const failed = await settled(token, run.id);
    expect(await modelRequests(agent.model)).toHaveLength(1);
    expect(failed.errors.at(-1)).toMatchObject({ generation: 1 });
    expect(failed.status).toBe("active");
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } })).status).toBe(202);
    await settled(token, run.id);
    expect(await modelRequests(agent.model)).toHaveLength(2);
  });
});
