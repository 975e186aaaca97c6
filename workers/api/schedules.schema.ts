import * as z from "zod";
import { ScheduleCreate, SchedulePatch, WakeWindowInput } from "../../core/schedules/input";
import { queryInt } from "../http/query.schema";

/**
 * The window as routines show it, a named schema of the API document. The bodies keep
 * WakeWindowInput unnamed: the schedule tools offer them to models, whose tool schemas
 * must be self-contained (no $ref).
 */
export const WakeWindow = WakeWindowInput.meta({
  id: "WakeWindow",
  description: "Random wake-ups between start and end (HH:MM) each day in timezone, at most max_wakes a day",
});

/** ScheduleCreate as the API document names it (the schedule_create tool takes it unnamed). */
export const ScheduleCreateBody = ScheduleCreate.meta({ id: "ScheduleCreate" });

/** SchedulePatch as the API document names it (the schedule tools take their own, with `id`). */
export const SchedulePatchBody = SchedulePatch.meta({ id: "SchedulePatch" });

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
