import { Hono } from "hono";
import { scheduleStore } from "../../core/db/schedules";
import { maxSchedulesPerAgent, ScheduleLimitReached } from "../../core/schedules/limits";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation, pathId } from "../http/contract";
import { ApiError } from "../http/errors";
import { findAgent } from "./agents";
import { rearm, toSchedule } from "./schedules";
import { Schedule, ScheduleCreateBody, ScheduleList } from "./schedules.schema";

/** `/api/agents/:id/schedules`, mounted beside the agent routes. */
export const agentScheduleRoutes = new Hono<AppEnv>()
  .get(
    "/:id/schedules",
    operation({
      operationId: "listAgentSchedules",
      summary: "The agent's routines",
      tag: "Schedules",
      responses: { 200: ok("The routines", ScheduleList) },
      notFound: "agent",
    }),
    pathId("agent"),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const rows = await scheduleStore.list(c.get("db"), agent.id);
      return c.json({ data: await Promise.all(rows.map(toSchedule)) });
    },
  )
  .post(
    "/:id/schedules",
    operation({
      operationId: "createAgentSchedule",
      summary: "Create a routine: a 5-field UTC cron or a random wake window",
      tag: "Schedules",
      responses: { 201: ok("The new routine", Schedule) },
      notFound: "agent",
      body: true,
      objects: true,
      conflict: "schedule.limit_reached: the agent has MAX_SCHEDULES_PER_AGENT routines (details.limit)",
    }),
    pathId("agent"),
    jsonBody(ScheduleCreateBody),
    async (c) => {
      const agent = await findAgent(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const body = c.req.valid("json");
      const limit = maxSchedulesPerAgent(c.env.MAX_SCHEDULES_PER_AGENT);
      const row = await scheduleStore.create(c.get("db"), agent.id, body, new Date(), Math.random, limit).catch((error: unknown) => {
        if (error instanceof ScheduleLimitReached) throw new ApiError(409, "schedule.limit_reached", error.message, { limit: error.limit });
        throw error;
      });
      await rearm(c.env, agent.id);
      return c.json(await toSchedule(row), 201);
    },
  );
