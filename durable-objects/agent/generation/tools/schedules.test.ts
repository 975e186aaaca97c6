import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, objectOf, rows, script, settled, toolCall } from "../../../../test/workerd/agents";
import { CAP, countRoutines, fill, routine, schedule, YEARLY } from "../../../../test/workerd/schedules";
import { call, seedGuild } from "../../../../test/workerd/seed";

describe("schedules", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SCHED-001 / SCHED-037: in a direct run the agent creates and lists its own routine with the schedule tools", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { tool_calls: [toolCall("schedule_create", schedule({ description: "Made by the agent" }))] },
      { tool_calls: [toolCall("schedule_list", {})] },
      { content: "scheduled" },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "remind yourself" } })).json;
    await settled(token, run.id);
    const list = (await call("GET", `/api/agents/${agent.id}/schedules`, { token })).json.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ description: "Made by the agent", cron: YEARLY });
    expect((await objectOf(agent.id).deadlines()).find((d) => d.name === "schedule")!.due_at).toBe(list[0].next_run_at);
    const listed = (await rows(token, run.id)).filter((r) => r.metadata.tool_name === "schedule_list")[0]!.payload.content as string;
    expect(listed).toContain("Made by the agent");
  });
});

describe("HARDEN-5: routines per agent are capped", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => {
    ({ token, guildId } = await seedGuild("Routine cap"));
  }, 30_000);

  it("HARDEN-5: at the cap, schedule_create answers the agent with an ERROR and writes nothing", async () => {
    const agent = await newAgent(token, guildId);
    await fill(token, agent.id, CAP);
    await script(agent.model, [{ tool_calls: [toolCall("schedule_create", routine(999))] }, { content: "could not" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "make one more" } })).json;
    const done = await settled(token, run.id);
    expect(done.errors).toEqual([]);
    const result = (await rows(token, run.id)).find((r) => r.metadata.tool_name === "schedule_create")!;
    expect(result.payload.content).toMatch(new RegExp(`^ERROR: An agent may have at most ${CAP} routines`));
    expect(await countRoutines(agent.id)).toBe(CAP);
  }, 60_000);
});
