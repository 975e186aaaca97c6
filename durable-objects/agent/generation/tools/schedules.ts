import { env } from "cloudflare:workers";
import type { Database } from "../../../../core/db/client";
import { type ScheduleRow, scheduleStore } from "../../../../core/db/schedules";
import { maxSchedulesPerAgent } from "../../../../core/schedules/limits";
import type { ScheduleTools, ScheduleView } from "../../../../core/tools/types";
import { isUuid } from "../../../../core/validation/fields";

const view = (row: ScheduleRow): ScheduleView => ({
  id: row.id,
  description: row.description,
  instruction: row.instruction,
  cron: row.cron,
  wake_window: row.wakeWindow,
  paused: row.paused,
  next_run_at: row.nextRunAt?.toISOString() ?? null,
  last_run_at: row.lastRunAt?.toISOString() ?? null,
});

/**
 * The schedule tools' store for one agent: the Routine API's operations, then the
 * object's schedule deadline re-armed, exactly as after a change made in the console.
 */
export function scheduleTools(db: Database, agentId: string, now: () => Date, random: () => number, rearm: () => Promise<unknown>): ScheduleTools {
  const find = (id: string) => (isUuid(id) ? scheduleStore.get(db, agentId, id) : Promise.resolve(null));
  /** Applies a change to one of the agent's routines and re-arms; null for an unknown id. */
  const change = async (id: string, apply: (row: ScheduleRow) => Promise<ScheduleRow>) => {
    const row = await find(id);
    if (!row) return null;
    const updated = await apply(row);
    await rearm();
    return view(updated);
  };
  return {
    async create(input) {
      // The same cap as the API; read from the bindings here so the tools need no extra argument.
      const limit = maxSchedulesPerAgent((env as { MAX_SCHEDULES_PER_AGENT?: string }).MAX_SCHEDULES_PER_AGENT);
      const row = await scheduleStore.create(db, agentId, input, now(), random, limit);
      await rearm();
      return view(row);
    },
    async list() {
      return (await scheduleStore.list(db, agentId)).map(view);
    },
    update: (id, patch) => change(id, (row) => scheduleStore.update(db, row, patch, now(), random)),
    setPaused: (id, paused) => change(id, (row) => scheduleStore.setPaused(db, row, paused, now(), random)),
    async remove(id) {
      const removed = isUuid(id) && (await scheduleStore.remove(db, agentId, id));
      if (removed) await rearm();
      return removed;
    },
  };
}
