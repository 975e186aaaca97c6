import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { DatabaseUnavailable, openDatabase } from "../../../core/db/client";
import { agents, schedules } from "../../../core/db/schema";
import { instructionHash } from "../../../core/schedules/instruction";
import { modelRequests, newAgent, objectOf, rows, script, settled, untilGenerating } from "../../../test/workerd/agents";
import { schedule, YEARLY } from "../../../test/workerd/schedules";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";

const YEAR_MS = 365 * 24 * 3600_000;

/** Runs the agent's alarm as if the clock read `at`. */
async function alarmAt(agentId: string, at: number) {
  const stub = objectOf(agentId);
  await runInDurableObject(stub, (object: AgentObject) => {
    object.now = () => at;
  });
  await runDurableObjectAlarm(stub);
}

async function scheduleRow(id: string) {
  const { db, close } = openDatabase(env);
  try {
    return (await db.select().from(schedules).where(eq(schedules.id, id)))[0]!;
  } finally {
    await close();
  }
}

async function scheduleRuns(token: string, id: string) {
  return (await call("GET", `/api/schedules/${id}/runs`, { token })).json.data as Array<{
    id: string;
    kind: string;
    status: string;
    label: string;
    schedule_id: string;
    instruction_hash?: string;
  }>;
}

describe("schedules", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SCHED-006 / SCHED-013..019 / RUN-008 / RUN-020: at its planned time the wake-up opens a one-shot schedule run with the wake-up message, once", async () => {
    const agent = await newAgent(token, guildId);
    const created = await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule() });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const planned = Date.parse(created.json.next_run_at);
    expect(new Date(planned).toISOString()).toMatch(/-01-01T00:00:00\.000Z$/);
    const status = (await call("GET", `/api/agents/${agent.id}/status`, { token })).json;
    expect(status.deadlines).toEqual([expect.objectContaining({ name: "schedule", due_at: created.json.next_run_at })]);

    await script(agent.model, [{ content: "checked" }]);
    await alarmAt(agent.id, planned + 250);
    const [run] = await scheduleRuns(token, created.json.id);
    expect(run).toMatchObject({
      kind: "schedule",
      label: "Schedule wake-up",
      schedule_id: created.json.id,
      instruction_hash: await instructionHash(schedule().instruction),
    });
    await settled(token, run!.id);
    expect((await call("GET", `/api/runs/${run!.id}`, { token })).json.status).toBe("completed");
    const transcript = await rows(token, run!.id);
    expect(transcript.map((r) => r.role)).toEqual(["system", "user", "assistant"]);
    const wake = transcript[1]!.payload.content as string;
    expect(wake.startsWith("Schedule wake-up: {")).toBe(true);
    expect(JSON.parse(wake.slice("Schedule wake-up: ".length))).toEqual({
      id: created.json.id,
      cron: YEARLY,
      instruction: schedule().instruction,
      previous_run_at: null,
    });
    // The schedule run offers no schedule tools (SCHED-037).
    expect((await modelRequests(agent.model))[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain("schedule_create");
    const after = await scheduleRow(created.json.id);
    expect(after.lastRunAt!.getTime()).toBe(planned + 250);
    expect(after.nextRunAt!.getTime()).toBe(Date.parse(`${new Date(planned).getUTCFullYear() + 1}-01-01T00:00:00.000Z`));
    // A repeated alarm at the same moment fires nothing more.
    await alarmAt(agent.id, planned + 300);
    expect(await scheduleRuns(token, created.json.id)).toHaveLength(1);
    // The next wake-up carries the previous one as its cursor (SCHED-015/016).
    await alarmAt(agent.id, after.nextRunAt!.getTime() + 10);
    const runs = await scheduleRuns(token, created.json.id);
    expect(runs).toHaveLength(2);
    await settled(token, runs[0]!.id);
    const second = (await rows(token, runs[0]!.id))[1]!.payload.content as string;
    expect(JSON.parse(second.slice("Schedule wake-up: ".length)).previous_run_at).toBe(new Date(planned + 250).toISOString());
    // One-shot: messages are refused until the operator resumes it.
    expect((await call("POST", `/api/runs/${run!.id}/messages`, { token, body: { content: "more" } })).status).toBe(409);
  });

  it("SCHED-006 / SCHED-009: a fire's run ends armed at the agent's next wake-up, and a schedule made during the run is not overwritten by what the fire knew", async () => {
    const agent = await newAgent(token, guildId);
    const yearly = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule() })).json;
    const july = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule({ cron: "0 0 1 7 *" }) })).json;
    const armedAt = async () => (await objectOf(agent.id).deadlines()).find((d) => d.name === "schedule")?.due_at;
    await script(agent.model, [{ content: "first" }, { content: "second", delay_ms: 3_000 }]);

    // No change during the run: the end arms at the other schedule's wake-up, before this one's next.
    const planned = Date.parse(yearly.next_run_at);
    await alarmAt(agent.id, planned + 250);
    const [first] = await scheduleRuns(token, yearly.id);
    await settled(token, first!.id);
    expect(await armedAt()).toBe(july.next_run_at);

    // A schedule made while the next fire's run generates (its API call re-arms the object):
    // the run's end keeps the earlier wake-up it armed.
    await alarmAt(agent.id, Date.parse(july.next_run_at) + 250);
    const [second] = await scheduleRuns(token, july.id);
    await untilGenerating(token, second!.id);
    const january = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule({ cron: "0 0 15 1 *" }) })).json;
    await settled(token, second!.id);
    expect(await armedAt()).toBe(january.next_run_at);
  });

  it("SCHED-008 / GEN-005: a due schedule of a busy agent waits 30 s without advancing", async () => {
    const agent = await newAgent(token, guildId);
    const created = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule() })).json;
    await script(agent.model, [{ content: "busy for a while", delay_ms: 1500 }, { content: "now the routine" }]);
    const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "keep busy" } })).json;
    await untilGenerating(token, direct.id);
    const planned = Date.parse(created.next_run_at);
    await alarmAt(agent.id, planned + 1000);
    expect(await scheduleRuns(token, created.id)).toHaveLength(0);
    expect((await scheduleRow(created.id)).nextRunAt!.getTime()).toBe(planned);
    const deadline = (await objectOf(agent.id).deadlines()).find((d) => d.name === "schedule")!;
    expect(Date.parse(deadline.due_at)).toBe(planned + 1000 + 30_000);
    await settled(token, direct.id);
  });

  it("SCHED-007 / SCHED-012 / SCHED-035: routines off fire nothing; turning them on replans due schedules from now with window_fires 0", async () => {
    const { token: t, guildId: g } = await seedGuild();
    const agent = await newAgent(t, g);
    const created = (await call("POST", `/api/agents/${agent.id}/schedules`, { token: t, body: schedule() })).json;
    expect((await call("PATCH", `/api/guilds/${g}`, { token: t, body: { routines_enabled: false } })).status).toBe(200);
    expect((await objectOf(agent.id).deadlines()).find((d) => d.name === "schedule")).toBeUndefined();
    // Make it due and run the alarm anyway: nothing fires.
    const { db, close } = openDatabase(env);
    const past = new Date(Date.now() - 60_000);
    await db.update(schedules).set({ nextRunAt: past, windowFires: 2 }).where(eq(schedules.id, created.id));
    await close();
    await runInDurableObject(objectOf(agent.id), (o: AgentObject) => o.rooms.context.deadlines.set("schedule", Date.now() - 1, { agent_id: agent.id }));
    await alarmAt(agent.id, Date.now());
    expect(await scheduleRuns(t, created.id)).toHaveLength(0);
    await call("PATCH", `/api/guilds/${g}`, { token: t, body: { routines_enabled: true } });
    const replanned = await scheduleRow(created.id);
    expect(replanned.nextRunAt!.getTime()).toBeGreaterThan(Date.now());
    expect(replanned.windowFires).toBe(0);
    expect((await objectOf(agent.id).deadlines()).find((d) => d.name === "schedule")).toBeDefined();
  });

  it("SCHED-010: a failed run creation advances to the next planned wake-up", async () => {
    const agent = await newAgent(token, guildId);
    const created = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule() })).json;
    const { db, close } = openDatabase(env);
    await db.update(agents).set({ archivedAt: new Date() }).where(eq(agents.id, agent.id));
    await close();
    const planned = Date.parse(created.next_run_at);
    await alarmAt(agent.id, planned + 5);
    expect(await scheduleRuns(token, created.id)).toHaveLength(0);
    const after = await scheduleRow(created.id);
    expect(after.nextRunAt!.getTime()).toBeGreaterThan(planned);
    expect(after.lastRunAt).toBeNull();
    expect((await objectOf(agent.id).generationState()).generating).toBe(false);
  });

  it("SCHED-009 / SCHED-010 / HARDEN-2: a fire the database fails stays due, and the deadline's retry opens its run once", async () => {
    const agent = await newAgent(token, guildId);
    const created = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule() })).json;
    const planned = Date.parse(created.next_run_at);
    await script(agent.model, [{ content: "checked after the outage" }]);
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, (object: AgentObject) => {
      object.now = () => planned + 5;
      const { runs } = object.rooms;
      const open = runs.open.bind(runs);
      let failures = 1;
      runs.open = (...args: Parameters<typeof open>) => (failures-- > 0 ? Promise.reject(new DatabaseUnavailable("the connection failed")) : open(...args));
    });
    await runDurableObjectAlarm(stub);
    expect(await scheduleRuns(token, created.id)).toHaveLength(0);
    const kept = await scheduleRow(created.id);
    expect(kept.nextRunAt!.getTime()).toBe(planned);
    const retry = (await stub.deadlines()).find((d) => d.name === "schedule")!;
    expect(retry.attempts).toBe(1);

    await alarmAt(agent.id, Date.parse(retry.due_at) + 5);
    const runs = await scheduleRuns(token, created.id);
    expect(runs).toHaveLength(1);
    await settled(token, runs[0]!.id);
    expect((await scheduleRow(created.id)).nextRunAt!.getTime()).toBeGreaterThan(planned);
    expect(await scheduleRuns(token, created.id)).toHaveLength(1);
  });
});

describe("schedule rows", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SCHED-009: no backlog: after three missed years the schedule fires once, then waits for its next occurrence", async () => {
    const agent = await newAgent(token, guildId);
    const created = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: { description: "Yearly", instruction: "Check.", cron: YEARLY } }))
      .json;
    const planned = Date.parse(created.next_run_at);
    const late = planned + 3 * YEAR_MS;
    await script(agent.model, [{ content: "one wake" }, { content: "a second wake would be a backlog" }]);
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, (object: AgentObject) => {
      object.now = () => late;
    });
    await runDurableObjectAlarm(stub);
    await runDurableObjectAlarm(stub);
    const runs = (await call("GET", `/api/schedules/${created.id}/runs`, { token })).json.data as Array<{ id: string }>;
    expect(runs).toHaveLength(1);
    await settled(token, runs[0]!.id);
    const after = (await call("GET", `/api/schedules/${created.id}`, { token })).json;
    expect(Date.parse(after.next_run_at)).toBeGreaterThan(late);
    expect((await call("GET", `/api/schedules/${created.id}/runs`, { token })).json.data).toHaveLength(1);
  });
});
