import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { YEARLY } from "../../test/workerd/schedules";
import { call, seedGuild } from "../../test/workerd/seed";

describe("schedule rows", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SCHED-003 / SCHED-004 / SCHED-005: an agent has several schedules, each with a one-line description and a markdown instruction", async () => {
    const agent = await newAgent(token, guildId);
    const instruction = "## Morning\n\n- read **records** since the last wake\n- post a summary";
    const first = await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: { description: "Morning digest", instruction, cron: YEARLY } });
    const second = await call("POST", `/api/agents/${agent.id}/schedules`, {
      token,
      body: { description: "Evening check", instruction: "Check the notes.", cron: "0 18 * * *" },
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.json).toMatchObject({ description: "Morning digest", instruction });
    const listed = (await call("GET", `/api/agents/${agent.id}/schedules`, { token })).json.data as Array<{ id: string; description: string }>;
    expect(listed.map((s) => s.id).sort()).toEqual([first.json.id, second.json.id].sort());

    const twoLines = await call("POST", `/api/agents/${agent.id}/schedules`, {
      token,
      body: { description: "line one\nline two", instruction: "x", cron: YEARLY },
    });
    expect(twoLines.status).toBe(422);
    expect(JSON.stringify(twoLines.json.error)).toContain("description");
    expect((await call("GET", `/api/agents/${agent.id}/schedules`, { token })).json.data).toHaveLength(2);
  });

  it("SCHED-038: routines_enabled is the guild's setting and paused each schedule's own flag", async () => {
    const { token: own, guildId: guild } = await seedGuild("Routines");
    const agent = await newAgent(own, guild);
    const a = (await call("POST", `/api/agents/${agent.id}/schedules`, { token: own, body: { description: "A", instruction: "a", cron: YEARLY } })).json;
    const b = (await call("POST", `/api/agents/${agent.id}/schedules`, { token: own, body: { description: "B", instruction: "b", cron: YEARLY } })).json;
    expect((await call("POST", `/api/schedules/${a.id}/pause`, { token: own })).json.paused).toBe(true);
    expect((await call("GET", `/api/schedules/${b.id}`, { token: own })).json.paused).toBe(false);

    const off = await call("PATCH", `/api/guilds/${guild}`, { token: own, body: { routines_enabled: false } });
    expect(off.json.routines_enabled).toBe(false);
    // The guild switch leaves each schedule's own flag as it was.
    expect((await call("GET", `/api/schedules/${a.id}`, { token: own })).json.paused).toBe(true);
    expect((await call("GET", `/api/schedules/${b.id}`, { token: own })).json.paused).toBe(false);
    expect((await call("GET", `/api/guilds/${guildId}`, { token })).json.routines_enabled).toBe(true);
  });
});
