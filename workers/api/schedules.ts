import { and, eq } from "drizzle-orm";
import { type Context, Hono } from "hono";
import type { Env } from "../../bindings/env";
import { agentObject } from "../../bindings/objects";
import type { Database } from "../../core/db/client";
import { toWire } from "../../core/db/rows";
import { type ScheduleRow, scheduleStore } from "../../core/db/schedules";
import { agents, schedules } from "../../core/db/schema";
import { instructionHash } from "../../core/schedules/instruction";
import { previewPlan } from "../../core/schedules/plan";
import { isUuid } from "../../core/validation/fields";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId, query } from "../http/contract";
import { notFound } from "../http/errors";
import { listRuns } from "./run-queries";
import { RunPage, ScheduleRunListQuery } from "./runs.schema";
import { PreviewQuery, Schedule, SchedulePatchBody, SchedulePreview } from "./schedules.schema";

/** A schedule as the API returns it, with the hash its next run will carry (SCHED-018). */
export async function toSchedule(row: ScheduleRow) {
  return { ...toWire(row), instruction_hash: await instructionHash(row.instruction) };
}

async function findSchedule(db: Database, organisationId: string, id: string): Promise<ScheduleRow> {
  if (!isUuid(id)) throw notFound("schedule");
  const [found] = await db
    .select({ schedule: schedules })
    .from(schedules)
    .innerJoin(agents, eq(agents.id, schedules.agentId))
    .where(and(eq(schedules.id, id), eq(agents.organisationId, organisationId)))
    .limit(1);
  if (!found) throw notFound("schedule");
  return found.schedule;
}

/** The agent's object re-arms its schedule deadline after every change. */
export const rearm = (env: Env, agentId: string) => agentObject(env, agentId).refreshSchedules(agentId);

const scheduleOp = (op: Omit<Parameters<typeof operation>[0], "tag" | "notFound">) => operation({ tag: "Schedules", notFound: "schedule", ...op });

/** `/api/schedules/:id/...`: one routine, its pause switch, its runs and its planned wake-ups. */
export const scheduleRoutes = new Hono<AppEnv>()
  .get(
    "/:id",
    scheduleOp({
      operationId: "getSchedule",
      summary: "A routine",
      responses: { 200: ok("The routine", Schedule) },
    }),
    pathId("schedule"),
    async (c) => c.json(await toSchedule(await findSchedule(c.get("db"), c.get("organisationId"), c.req.valid("param").id))),
  )
  .patch(
    "/:id",
    scheduleOp({
      operationId: "updateSchedule",
      summary: "Change a routine; a new trigger replans from now",
      responses: { 200: ok("The changed routine", Schedule) },
      body: true,
      objects: true,
    }),
    pathId("schedule"),
    jsonBody(SchedulePatchBody),
    async (c) => {
      const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const updated = await scheduleStore.update(c.get("db"), row, c.req.valid("json"), new Date(), Math.random);
      await rearm(c.env, row.agentId);
      return c.json(await toSchedule(updated));
    },
  )
  .post(
    "/:id/pause",
    scheduleOp({
      operationId: "pauseSchedule",
      summary: "Pause a routine",
      responses: { 200: ok("The paused routine", Schedule) },
      objects: true,
    }),
    pathId("schedule"),
    (c) => setPaused(c, c.req.valid("param").id, true),
  )
  .post(
    "/:id/resume",
    scheduleOp({
      operationId: "resumeSchedule",
      summary: "Resume a routine: next_run_at from now, window_fires 0",
      responses: { 200: ok("The resumed routine", Schedule) },
      objects: true,
    }),
    pathId("schedule"),
    (c) => setPaused(c, c.req.valid("param").id, false),
  )
  .delete(
    "/:id",
    scheduleOp({
      operationId: "deleteSchedule",
      summary: "Delete a routine (its runs stay)",
      responses: { 204: ok("Deleted") },
      objects: true,
    }),
    pathId("schedule"),
    async (c) => {
      const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      await scheduleStore.remove(c.get("db"), row.agentId, row.id);
      await rearm(c.env, row.agentId);
      return c.body(null, 204);
    },
  )
  .get(
    "/:id/runs",
    scheduleOp({
      operationId: "listScheduleRuns",
      summary: "The runs this routine fired, newest first",
      responses: { 200: ok("A page of runs", RunPage) },
      query: true,
    }),
    pathId("schedule"),
    query(ScheduleRunListQuery),
    async (c) => {
      const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      return c.json(await listRuns(c.get("db"), row.agentId, { ...c.req.valid("query"), schedule_id: row.id }));
    },
  )
  .get(
    "/:id/preview",
    scheduleOp({
      operationId: "previewSchedule",
      summary: "The routine's next planned wake-ups",
      responses: { 200: ok("The planned wake-ups", SchedulePreview) },
      query: true,
    }),
    pathId("schedule"),
    query(PreviewQuery),
    async (c) => {
      const row = await findSchedule(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const planned = previewPlan({ cron: row.cron, wakeWindow: row.wakeWindow }, new Date(), c.req.valid("query").count, Math.random);
      return c.json({ schedule_id: row.id, wake_ups: planned.map((d) => d.toISOString()) });
    },
  );

/** Pauses or resumes a routine and re-arms its agent's deadline. */
async function setPaused(c: Context<AppEnv>, id: string, paused: boolean) {
  const row = await findSchedule(c.get("db"), c.get("organisationId"), id);
  const updated = await scheduleStore.setPaused(c.get("db"), row, paused, new Date(), Math.random);
  await rearm(c.env, row.agentId);
  return c.json(await toSchedule(updated));
}
