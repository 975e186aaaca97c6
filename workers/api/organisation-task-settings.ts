import { Hono } from "hono";
import { organisationTaskSettings, patchTaskSettings } from "../../core/db/task-settings";
import type { AppEnv } from "../http/context";
import { jsonBody, ok, operation } from "../http/contract";
import { wakeQueue } from "./tasks";
import { TaskSettingsSchema, TaskSettingsUpdate } from "./tasks.schema";

/** `GET/PATCH /api/organisation/task-settings`: runs.* and volumes.* of the organisation's tasks (TASK-007, TASK-037). */
export const taskSettingsRoutes = new Hono<AppEnv>()
  .get(
    "/task-settings",
    operation({
      operationId: "getTaskSettings",
      summary: "The organisation's task settings, defaults filled in",
      tag: "Tasks",
      responses: { 200: ok("The effective settings", TaskSettingsSchema) },
    }),
    async (c) => c.json(await organisationTaskSettings(c.get("db"), c.get("organisationId"))),
  )
  .patch(
    "/task-settings",
    operation({
      operationId: "updateTaskSettings",
      summary: "Set some of the organisation's task settings; keys not named keep their values",
      tag: "Tasks",
      responses: { 200: ok("The effective settings", TaskSettingsSchema) },
      body: true,
    }),
    jsonBody(TaskSettingsUpdate),
    async (c) => {
      const settings = await patchTaskSettings(c.get("db"), c.get("organisationId"), c.req.valid("json"));
      // A higher runs.maxConcurrent frees run slots for tasks waiting now.
      await wakeQueue(c.env, c.get("organisationId"));
      return c.json(settings);
    },
  );
