import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { schedules } from "../../core/db/schema";
import { maxSchedulesPerAgent } from "../../core/schedules/limits";
import { newAgent, rows, script, settled, toolCall } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

const YEARLY = "0 0 1 1 *";
/** The cap this Worker is configured with (wrangler.toml's MAX_SCHEDULES_PER_AGENT). */
const CAP = maxSchedulesPerAgent((env as unknown as Env).MAX_SCHEDULES_PER_AGENT);
const routine = (i: number) => ({ description: `Routine ${i}`, instruction: "Check in.", cron: YEARLY });

async function countRoutines(agentId: string) {
  const { db, close } = openDatabase(env);
  try {
    return (await db.select({ id: schedules.id }).from(schedules).where(eq(schedules.agentId, agentId))).length;
  } finally {
    await close();
  }
}

/** Fills the agent up to `count` routines through the API. */
async function fill(token: string, agentId: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await call("POST", `/api/agents/${agentId}/schedules`, { token, body: routine(i) });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  }
}

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
