/**
 * A routine's fields as an operator (the API) and the agent's schedule tools set them
 * (OP-SCHED-4): one shape for both, each trigger checked as the planner will use it. The
 * API document's named shapes and its answers are in workers/api/schedules.schema.ts.
 */
import * as z from "zod";
import { oneLine } from "../validation/fields";
import { validateCron } from "./cron";
import { validateWakeWindow } from "./wake-window";

/** The random window of a schedule as the API takes it (SCHED-024). */
export const WakeWindowInput = z.strictObject({
  timezone: z.string().min(1).max(64),
  start: z.string(),
  end: z.string(),
  max_wakes: z.int().min(1).max(288),
});

const triggerChecks = (body: { cron?: string | null; wake_window?: z.infer<typeof WakeWindowInput> | null }, ctx: z.RefinementCtx) => {
  if (body.cron) {
    const check = validateCron(body.cron);
    if (!check.ok) ctx.addIssue({ code: "custom", path: ["cron"], message: check.message });
  }
  if (body.wake_window) {
    // The planner names fields from the body's root ("wake_window.start").
    for (const issue of validateWakeWindow(body.wake_window)) ctx.addIssue({ code: "custom", path: issue.field.split("."), message: issue.message });
  }
};

/** Fields an operator (or the agent's schedule tools) may set (OP-SCHED-4). */
const scheduleFields = {
  description: oneLine(200),
  instruction: z.string().trim().min(1).max(4000),
  cron: z.string().trim().min(1).max(120).nullable(),
  wake_window: WakeWindowInput.nullable(),
  paused: z.boolean(),
};

/**
 * Body of `POST /api/agents/:id/schedules`: exactly one trigger, a cron (5 fields, UTC)
 * or a wake window (SCHED-002), each checked as the planner will use it.
 *
 * @example ScheduleCreate.parse({ description: "Morning check", instruction: "Look at the news", cron: "0 8 * * *" })
 */
export const ScheduleCreate = z
  .strictObject({
    description: scheduleFields.description,
    instruction: scheduleFields.instruction,
    cron: scheduleFields.cron.optional(),
    wake_window: scheduleFields.wake_window.optional(),
    paused: scheduleFields.paused.default(false),
  })
  .superRefine((body, ctx) => {
    if (!body.cron === !body.wake_window) {
      ctx.addIssue({ code: "custom", path: body.cron ? ["wake_window"] : ["cron"], message: "give exactly one trigger: cron or wake_window" });
    }
    triggerChecks(body, ctx);
  });

/**
 * A routine's changes: any subset of its fields, at least one; a new trigger replaces the
 * old one. `extra` adds identifying fields (the schedule tools' `id`), which do not count
 * as changes.
 */
export function schedulePatch<E extends z.ZodRawShape>(extra: E) {
  return z
    .strictObject(scheduleFields)
    .partial()
    .extend(extra)
    .superRefine((body: Record<string, unknown>, ctx) => {
      const changes = Object.keys(body).filter((k) => !(k in extra));
      if (changes.length === 0) ctx.addIssue({ code: "custom", path: [], message: "no field to change" });
      if (body.cron && body.wake_window) ctx.addIssue({ code: "custom", path: ["wake_window"], message: "give exactly one trigger: cron or wake_window" });
      if (body.cron === null && body.wake_window === null) ctx.addIssue({ code: "custom", path: ["cron"], message: "a schedule needs a trigger" });
      triggerChecks(body as Parameters<typeof triggerChecks>[0], ctx);
    });
}

/** A routine's changes without identifying fields: the body of `PATCH /api/schedules/:id`. */
export const SchedulePatch = schedulePatch({});

export type ScheduleCreate = z.infer<typeof ScheduleCreate>;
export type SchedulePatch = z.infer<typeof SchedulePatch>;
