import * as z from "zod";
import { validateCron } from "../schedules/cron";
import { validateWakeWindow } from "../schedules/wake-window";
import { oneLine } from "./fields";
import { queryInt } from "./query";

/** The random window of a schedule as the API takes it (SCHED-024). */
export const WakeWindowInput = z.strictObject({
  timezone: z.string().min(1).max(64),
  start: z.string(),
  end: z.string(),
  max_wakes: z.int().min(1).max(288),
});

/**
 * The window as routines show it, a named schema of the API document. The bodies keep
 * WakeWindowInput unnamed: the schedule tools offer them to models, whose tool schemas
 * must be self-contained (no $ref).
 */
export const WakeWindow = WakeWindowInput.meta({
  id: "WakeWindow",
  description: "Random wake-ups between start and end (HH:MM) each day in timezone, at most max_wakes a day",
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

/** ScheduleCreate as the API document names it (the schedule_create tool takes it unnamed). */
export const ScheduleCreateBody = ScheduleCreate.meta({ id: "ScheduleCreate" });

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

/** Body of `PATCH /api/schedules/:id`. */
export const SchedulePatch = schedulePatch({}).meta({ id: "SchedulePatch" });

/** A schedule as the API returns it. */
export const Schedule = z
  .object({
    id: z.uuid(),
    agent_id: z.uuid(),
    description: z.string(),
    instruction: z.string(),
    instruction_hash: z.string(),
    cron: z.string().nullable(),
    wake_window: WakeWindow.nullable(),
    paused: z.boolean(),
    next_run_at: z.iso.datetime().nullable(),
    last_run_at: z.iso.datetime().nullable(),
    window_fires: z.int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Schedule" });

/** An agent's routines (`GET /api/agents/:id/schedules`). */
export const ScheduleList = z.object({ data: z.array(Schedule) }).meta({ id: "ScheduleList" });

/** Query of `GET /api/schedules/:id/preview`. */
export const PreviewQuery = z.strictObject({ count: queryInt(1, 50, 5).describe("How many wake-ups (1-50, default 5)") });

/** The next planned wake-ups of a routine. */
export const SchedulePreview = z.object({ schedule_id: z.uuid(), wake_ups: z.array(z.iso.datetime()) }).meta({ id: "SchedulePreview" });

export type ScheduleCreate = z.infer<typeof ScheduleCreate>;
export type SchedulePatch = z.infer<typeof SchedulePatch>;
