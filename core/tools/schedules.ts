import * as z from "zod";
import { ScheduleCreate, schedulePatch } from "../schedules/input";
import { ScheduleLimitReached } from "../schedules/limits";
import type { ScheduleTools, ScheduleView, ToolContext, ToolDefinition, ToolResult } from "./types";

const Id = z.strictObject({ id: z.uuid() });

/** The schedule store of the context, or the reason the tool cannot run here. */
function routines(ctx: ToolContext): ScheduleTools {
  if (!ctx.schedules) throw new Error("schedules are not available in this run");
  return ctx.schedules;
}

const show = (schedule: ScheduleView | null, id: string): ToolResult =>
  schedule ? { content: JSON.stringify(schedule, null, 2) } : { content: `ERROR: no schedule ${id}` };

/**
 * The six schedule tools (OP-EXACT-1): offered on direct and group runs, not on schedule
 * runs (EXACT-017, SCHED-037). They share the Routine tab's validation and planning.
 */
export const scheduleCreate: ToolDefinition<z.infer<typeof ScheduleCreate>> = {
  name: "schedule_create",
  description:
    "Create a routine that wakes you later: a 5-field UTC cron, or a random wake_window {timezone, start HH:MM, end HH:MM, max_wakes} each day. The instruction (markdown) is what the wake-up tells you to do.",
  binding: "schedule",
  parameters: ScheduleCreate,
  execute: async (args, ctx) => {
    try {
      return { content: JSON.stringify(await routines(ctx).create(args), null, 2) };
    } catch (error) {
      if (error instanceof ScheduleLimitReached) return { content: `ERROR: ${error.message}` };
      throw error;
    }
  },
};

export const scheduleList: ToolDefinition<Record<string, never>> = {
  name: "schedule_list",
  description: "List your routines with their next and last wake-ups.",
  binding: "schedule",
  parameters: z.strictObject({}),
  execute: async (_args, ctx) => ({ content: JSON.stringify(await routines(ctx).list(), null, 2) }),
};

const ScheduleUpdate = schedulePatch({ id: z.uuid() });

export const scheduleUpdate: ToolDefinition<z.infer<typeof ScheduleUpdate>> = {
  name: "schedule_update",
  description: "Change a routine's description, instruction or trigger; a new trigger replans from now.",
  binding: "schedule",
  parameters: ScheduleUpdate,
  execute: async ({ id, ...patch }, ctx) => show(await routines(ctx).update(id, patch), id),
};

export const schedulePause: ToolDefinition<{ id: string }> = {
  name: "schedule_pause",
  description: "Pause a routine: it does not wake you until resumed.",
  binding: "schedule",
  parameters: Id,
  execute: async ({ id }, ctx) => show(await routines(ctx).setPaused(id, true), id),
};

export const scheduleResume: ToolDefinition<{ id: string }> = {
  name: "schedule_resume",
  description: "Resume a paused routine; its next wake-up is planned from now.",
  binding: "schedule",
  parameters: Id,
  execute: async ({ id }, ctx) => show(await routines(ctx).setPaused(id, false), id),
};

export const scheduleDelete: ToolDefinition<{ id: string }> = {
  name: "schedule_delete",
  description: "Delete a routine. Its past runs stay.",
  binding: "schedule",
  parameters: Id,
  execute: async ({ id }, ctx) => ({ content: (await routines(ctx).remove(id)) ? `deleted schedule ${id}` : `ERROR: no schedule ${id}` }),
};

export const SCHEDULE_TOOLS = [scheduleCreate, scheduleList, scheduleUpdate, schedulePause, scheduleResume, scheduleDelete] as const;
