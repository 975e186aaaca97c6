import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { schedules } from "../../core/db/schema";
import { newAgent, objectOf } from "../../test/workerd/agents";
import { schedule } from "../../test/workerd/schedules";
import { call, seedGuild } from "../../test/workerd/seed";

describe("schedules", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SCHED-002 / SCHED-027 / SCHED-028: bad triggers answer 422 naming the field", async () => {
    const agent = await newAgent(token, guildId);
    const cases: Array<[Record<string, unknown>, string]> = [
      [schedule({ cron: "* * *" }), "cron"],
      [schedule({ cron: "0 0 * * * *" }), "cron"],
      [schedule({ cron: undefined }), "cron"],
      [schedule({ wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "17:00", max_wakes: 2 } }), "wake_window"],
      [schedule({ cron: undefined, wake_window: { timezone: "Mars/Olympus", start: "09:00", end: "17:00", max_wakes: 2 } }), "wake_window.timezone"],
      [schedule({ cron: undefined, wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "09:00", max_wakes: 2 } }), "wake_window"],
      [schedule({ cron: undefined, wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "09:20", max_wakes: 5 } }), "wake_window.max_wakes"],
      [schedule({ description: "two\nlines" }), "description"],
    ];
    for (const [body, field] of cases) {
      const res = await call("POST", `/api/agents/${agent.id}/schedules`, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(
        res.json.error.details.fields.map((f: { field: string }) => f.field).some((f: string) => f.startsWith(field)),
        JSON.stringify(res.json),
      ).toBe(true);
    }
    expect((await call("GET", `/api/agents/${agent.id}/schedules`, { token })).json.data).toEqual([]);
  });

  it("SCHED-002: a cron list with overlapping values, as Vixie cron and cronie take it, is accepted and wakes once per matching minute", async () => {
    const agent = await newAgent(token, guildId);
    // New year's day listed twice: still yearly.
    const created = await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule({ cron: "0 0 1,1 1 *" }) });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.cron).toBe("0 0 1,1 1 *");
    const preview = (await call("GET", `/api/schedules/${created.json.id}/preview?count=3`, { token })).json.wake_ups as string[];
    expect(new Set(preview).size).toBe(3);
    for (const at of preview) expect(at).toMatch(/-01-01T00:00:00\.000Z$/);
    const updated = await call("PATCH", `/api/schedules/${created.json.id}`, { token, body: { cron: "0 0 1 jan,1 *" } });
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
    await call("DELETE", `/api/schedules/${created.json.id}`, { token });
  });

  it("SCHED-011 / SCHED-035: pause stops firing; resume plans from now and resets window_fires", async () => {
    const agent = await newAgent(token, guildId);
    const window = { timezone: "Europe/Berlin", start: "09:00", end: "17:00", max_wakes: 3 };
    const created = (await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: schedule({ cron: undefined, wake_window: window }) })).json;
    expect(created.wake_window).toEqual(window);
    const paused = await call("POST", `/api/schedules/${created.id}/pause`, { token });
    expect(paused.json.paused).toBe(true);
    expect((await objectOf(agent.id).deadlines()).find((d) => d.name === "schedule")).toBeUndefined();
    const { db, close } = openDatabase(env);
    await db
      .update(schedules)
      .set({ windowFires: 2, nextRunAt: new Date(Date.now() - 3_600_000) })
      .where(eq(schedules.id, created.id));
    await close();
    const resumed = (await call("POST", `/api/schedules/${created.id}/resume`, { token })).json;
    expect(resumed).toMatchObject({ paused: false, window_fires: 0 });
    expect(Date.parse(resumed.next_run_at)).toBeGreaterThan(Date.now());
    const preview = (await call("GET", `/api/schedules/${created.id}/preview?count=6`, { token })).json.wake_ups as string[];
    expect(preview).toHaveLength(6);
    expect([...preview].sort()).toEqual(preview);
    expect((await call("GET", `/api/schedules/${created.id}/preview?count=0`, { token })).status).toBe(422);
  });
});
