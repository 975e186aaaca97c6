import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import * as z from "zod";
import type { Database } from "../../core/db/client";
import { toWire } from "../../core/db/rows";
import { scheduleStore, type ScheduleRow } from "../../core/db/schedules";
import { agents, schedules } from "../../core/db/schema";
import { instructionHash } from "../../core/schedules/instruction";
import { maxSchedulesPerAgent, ScheduleLimitReached } from "../../core/schedules/limits";
import { previewPlan } from "../../core/schedules/plan";
import { isUuid } from "../../core/validation/fields";
import { fieldIssues } from "../../core/validation/issues";
import { queryInt } from "../../core/validation/query";
import { Run } from "../../core/validation/run";
import { Schedule, ScheduleCreate, SchedulePatch } from "../../core/validation/schedule";
import { agentObject } from "../../bindings/objects";
import { readBody } from "../body";
import type { AppEnv } from "../context";
import type { Env } from "../../bindings/env";
import { ApiError, notFound, validationFailed } from "../errors";
import type { RouteDoc } from "../openapi";
import { findAgent } from "./agents";
import { listRuns } from "./runs";

/** A schedule as the API returns it, with the hash its next run will carry (SCHED-018). */
export async function toSchedule(row: ScheduleRow) {
  return { ...toWire(row), instruction_hash: await instructionHash(row.instruction) };
}

async function findSchedule(db: Database, organisationId: string, id: string): Promise<ScheduleRow> {
  if (!isUuid(id)) throw notFound("schedule");
  const [found] = await db.select({ schedule: schedules }).from(schedules).innerJoin(agents, eq(agents.id, schedules.agentId))
    .where(and(eq(schedules.id, id), eq(agents.organisationId, organisationId))).limit(1);
  if (!found) throw notFound("schedule");
  return found.schedule;
}

/** The agent's object re-arms its schedule deadline after every change. */
const rearm = (env: Env, agentId: string) => agentObject(env, agentId).refreshSchedules(agentId);

const PreviewQuery = z.strictObject({ count: queryInt(1, 50).default(5) });

/** `/api/agents/:id/schedules`, mounted beside the agent routes. */
export const agentScheduleRoutes = new Hono<AppEnv>()
  .get("/:id/schedules", async (c) => {
    const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const rows = await scheduleStore.list(c.get("db"), agent.id);
    return c.json({ data: await Promise.all(rows.map(toSchedule)) });
  })
  .post("/:id/schedules", async (c) => {
    const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const body = await readBody(c, ScheduleCreate);
    const limit = maxSchedulesPerAgent(c.env.MAX_SCHEDULES_PER_AGENT);
    const row = await scheduleStore.create(c.get("db"), agent.id, body, new Date(), Math.random, limit).catch((error: unknown) => {
      if (error instanceof ScheduleLimitReached) throw new ApiError(409, "schedule.limit_reached", error.message, { limit: error.limit });
      throw error;
    });
    await rearm(c.env, agent.id);
    return c.json(await toSchedule(row), 201);
  });

/** `/api/schedules/:id/...`: one routine, its pause switch, its runs and its planned wake-ups. */
export const scheduleRoutes = new Hono<AppEnv>()
  .get("/:id", async (c) => c.json(await toSchedule(await findSchedule(c.get("db"), c.get("organisationId"), c.req.param("id")))))
  .patch("/:id", async (c) => {
    const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const body = await readBody(c, SchedulePatch);
    const updated = await scheduleStore.update(c.get("db"), row, body, new Date(), Math.random);
    await rearm(c.env, row.agentId);
    return c.json(await toSchedule(updated));
  })
  .post("/:id/pause", async (c) => {
    const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const updated = await scheduleStore.setPaused(c.get("db"), row, true, new Date(), Math.random);
    await rearm(c.env, row.agentId);
    return c.json(await toSchedule(updated));
  })
  .post("/:id/resume", async (c) => {
    const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const updated = await scheduleStore.setPaused(c.get("db"), row, false, new Date(), Math.random);
    await rearm(c.env, row.agentId);
    return c.json(await toSchedule(updated));
  })
  .delete("/:id", async (c) => {
    const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.param("id"));
    await scheduleStore.remove(c.get("db"), row.agentId, row.id);
    await rearm(c.env, row.agentId);
    return c.body(null, 204);
  })
  .get("/:id/runs", async (c) => {
    const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.param("id"));
    return c.json(await listRuns(c.get("db"), row.agentId, { ...c.req.query(), schedule_id: row.id }));
  })
  .get("/:id/preview", async (c) => {
    const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const query = PreviewQuery.safeParse(c.req.query());
    if (!query.success) throw validationFailed(fieldIssues(query.error));
    const planned = previewPlan({ cron: row.cron, wakeWindow: row.wakeWindow }, new Date(), query.data.count, Math.random);
    return c.json({ schedule_id: row.id, wake_ups: planned.map((d) => d.toISOString()) });
  });

export const scheduleDocs: RouteDoc[] = [
  { method: "get", path: "/api/agents/{id}/schedules", summary: "The agent's routines", tag: "Schedules", response: z.object({ data: z.array(Schedule) }) },
  { method: "post", path: "/api/agents/{id}/schedules", summary: "Create a routine: a 5-field UTC cron or a random wake window (409 schedule.limit_reached past MAX_SCHEDULES_PER_AGENT)", tag: "Schedules", body: ScheduleCreate, response: Schedule, status: 201 },
  { method: "get", path: "/api/schedules/{id}", summary: "A routine", tag: "Schedules", response: Schedule },
  { method: "patch", path: "/api/schedules/{id}", summary: "Change a routine; a new trigger replans from now", tag: "Schedules", body: SchedulePatch, response: Schedule },
  { method: "delete", path: "/api/schedules/{id}", summary: "Delete a routine (its runs stay)", tag: "Schedules", status: 204 },
  { method: "post", path: "/api/schedules/{id}/pause", summary: "Pause a routine", tag: "Schedules", response: Schedule },
  { method: "post", path: "/api/schedules/{id}/resume", summary: "Resume a routine: next_run_at from now, window_fires 0", tag: "Schedules", response: Schedule },
  { method: "get", path: "/api/schedules/{id}/runs", summary: "The runs this routine fired, newest first", tag: "Schedules", response: Run, list: true },
  { method: "get", path: "/api/schedules/{id}/preview", summary: "The next planned wake-ups (?count=, 1-50)", tag: "Schedules", response: z.object({ schedule_id: z.uuid(), wake_ups: z.array(z.iso.datetime()) }) },
];
