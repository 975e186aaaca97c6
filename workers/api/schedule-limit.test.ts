import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { CAP, countRoutines, fill, routine } from "../../test/workerd/schedules";
import { call, seedGuild } from "../../test/workerd/seed";

describe("HARDEN-5: routines per agent are capped", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => {
    ({ token, guildId } = await seedGuild("Routine cap"));
  }, 30_000);

  it("HARDEN-5: five simultaneous creates one short of the cap let exactly one in; the rest are 409 schedule.limit_reached", async () => {
    const agent = await newAgent(token, guildId);
    const cap = CAP;
    await fill(token, agent.id, cap - 1);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => call("POST", `/api/agents/${agent.id}/schedules`, { token, body: routine(100 + i) })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.json.error.code).toBe("schedule.limit_reached");
    expect(refused.json.error.message).toContain(`at most ${cap} routines`);
    expect(refused.json.error.details.limit).toBe(cap);
    expect(await countRoutines(agent.id)).toBe(cap);
    // Deleting one makes room again.
    const list = (await call("GET", `/api/agents/${agent.id}/schedules`, { token })).json.data;
    expect((await call("DELETE", `/api/schedules/${list[0].id}`, { token })).status).toBe(204);
    expect((await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: routine(200) })).status).toBe(201);
  }, 60_000);
});
