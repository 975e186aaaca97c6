import { and, asc, count, eq, lte, sql } from "drizzle-orm";
import type { ScheduleCreate, SchedulePatch } from "../schedules/input";
import { DEFAULT_MAX_SCHEDULES_PER_AGENT, ScheduleLimitReached } from "../schedules/limits";
import { freshPlan, planAfterFire } from "../schedules/plan";
import type { WakePlan } from "../schedules/wake-window";
import { usageMonth } from "../usage/pricing";
import { openingStateColumns, openingStateOf } from "./agent-state";
import type { Database } from "./client";
import { agents, guilds, schedules } from "./schema";

export type ScheduleRow = typeof schedules.$inferSelect;

const triggerOf = (row: Pick<ScheduleRow, "cron" | "wakeWindow">) => ({ cron: row.cron, wakeWindow: row.wakeWindow });

/**
 * The schedule operations shared by the Routine API and the agent's schedule tools.
 * Every change that moves next_run_at plans from now with window_fires 0.
 */
export const scheduleStore = {
  /**
   * Creates a routine unless the agent already has `limit` of them (ScheduleLimitReached).
   * The agent's row is locked first, so simultaneous creates count one after another and
   * an agent one short of the cap gets exactly one more.
   */
  async create(
    db: Database,
    agentId: string,
    input: ScheduleCreate,
    now: Date,
    random: () => number,
    limit = DEFAULT_MAX_SCHEDULES_PER_AGENT,
  ): Promise<ScheduleRow> {
    const trigger = { cron: input.cron ?? null, wakeWindow: input.wake_window ?? null };
    const plan = freshPlan(trigger, now, random);
    return db.transaction(async (tx) => {
      // NO KEY UPDATE: serialises creates of this agent without blocking inserts that reference it.
      await tx.execute(sql`select 1 from ${agents} where ${agents.id} = ${agentId} for no key update`);
      const [existing] = await tx.select({ n: count() }).from(schedules).where(eq(schedules.agentId, agentId));
      if ((existing?.n ?? 0) >= limit) throw new ScheduleLimitReached(limit);
      const [row] = await tx
        .insert(schedules)
        .values({
          agentId,
          description: input.description,
          instruction: input.instruction,
          ...trigger,
          paused: input.paused,
          nextRunAt: plan.nextRunAt,
          windowFires: 0,
        })
        .returning();
      return row!;
    });
  },

  async list(db: Database, agentId: string): Promise<ScheduleRow[]> {
    return db.select().from(schedules).where(eq(schedules.agentId, agentId)).orderBy(asc(schedules.createdAt), asc(schedules.id));
  },

  async get(db: Database, agentId: string, id: string): Promise<ScheduleRow | null> {
    const [row] = await db
      .select()
      .from(schedules)
      .where(and(eq(schedules.id, id), eq(schedules.agentId, agentId)))
      .limit(1);
    return row ?? null;
  },

  /** A new trigger replans from now (window_fires 0); other fields keep next_run_at. */
  async update(db: Database, row: ScheduleRow, patch: SchedulePatch, now: Date, random: () => number): Promise<ScheduleRow> {
    const trigger = {
      cron: patch.wake_window ? null : patch.cron !== undefined ? patch.cron : row.cron,
      wakeWindow: patch.cron ? null : patch.wake_window !== undefined ? patch.wake_window : row.wakeWindow,
    };
    const retrigger = patch.cron !== undefined || patch.wake_window !== undefined;
    const resumed = patch.paused === false && row.paused;
    const plan = retrigger || resumed ? freshPlan(trigger, now, random) : null;
    const [updated] = await db
      .update(schedules)
      .set({
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.instruction !== undefined ? { instruction: patch.instruction } : {}),
        ...(patch.paused !== undefined ? { paused: patch.paused } : {}),
        ...trigger,
        ...(plan ? { nextRunAt: plan.nextRunAt, windowFires: 0 } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(schedules.id, row.id))
      .returning();
    return updated!;
  },

  /** Pause keeps next_run_at for display; resume recomputes it from now (SCHED-011). */
  async setPaused(db: Database, row: ScheduleRow, paused: boolean, now: Date, random: () => number): Promise<ScheduleRow> {
    if (!paused && !row.paused) return row;
    return scheduleStore.update(db, row, { paused }, now, random);
  },

  async remove(db: Database, agentId: string, id: string): Promise<boolean> {
    const deleted = await db
      .delete(schedules)
      .where(and(eq(schedules.id, id), eq(schedules.agentId, agentId)))
      .returning({ id: schedules.id });
    return deleted.length > 0;
  },
};

/**
 * The earliest wake-up the agent's object must keep armed: unpaused schedules of an
 * agent whose guild runs routines (SCHED-006/007). Null when nothing can fire.
 */
export async function earliestWakeUp(db: Database, agentId: string): Promise<Date | null> {
  const [row] = await db
    .select({ at: sql<string | null>`min(${schedules.nextRunAt})::text` })
    .from(schedules)
    .innerJoin(agents, eq(agents.id, schedules.agentId))
    .innerJoin(guilds, eq(guilds.id, agents.guildId))
    .where(and(eq(schedules.agentId, agentId), eq(schedules.paused, false), eq(guilds.routinesEnabled, true)));
  return row?.at ? new Date(row.at) : null;
}

/**
 * The agent's due schedule that should fire first, with its guild's routines switch and the
 * earliest wake-up of its other unpaused schedules (`othersAt`): with this one's next plan,
 * that is where the agent wakes next, known without a read of its own once the run ends.
 * The run's opening state comes in the same statement (`opening`), so a fire reads once.
 */
export async function firstDue(db: Database, agentId: string, now: Date) {
  const [row] = await firstDueQuery(db).execute({ agentId, now, month: usageMonth(now) });
  if (!row) return null;
  const { schedule, routinesEnabled, othersAt, ...opening } = row;
  return { schedule, routinesEnabled, othersAt: othersAt ? new Date(othersAt) : null, opening: openingStateOf(opening) };
}

/**
 * firstDue's statement, built once per database: it runs at every fire, and drizzle took
 * longer to build its text (a fifth of a millisecond, on the objects' one thread) than
 * Postgres took to run it. Unnamed: nothing is prepared on the server.
 */
function firstDueQuery(db: Database): FirstDueQuery {
  let query = firstDueQueries.get(db);
  if (!query) firstDueQueries.set(db, (query = buildFirstDue(db)));
  return query;
}

function buildFirstDue(db: Database) {
  return db
    .select({
      schedule: schedules,
      routinesEnabled: guilds.routinesEnabled,
      othersAt: sql<string | null>`(select min(o.next_run_at)::text from schedules o
        where o.agent_id = ${schedules.agentId} and o.paused = false and o.id <> ${schedules.id})`,
      ...openingStateColumns(sql.placeholder("month")),
    })
    .from(schedules)
    .innerJoin(agents, eq(agents.id, schedules.agentId))
    .innerJoin(guilds, eq(guilds.id, agents.guildId))
    .where(and(eq(schedules.agentId, sql.placeholder("agentId")), eq(schedules.paused, false), lte(schedules.nextRunAt, sql.placeholder("now"))))
    .orderBy(asc(schedules.nextRunAt))
    .limit(1)
    .prepare("");
}

type FirstDueQuery = ReturnType<typeof buildFirstDue>;
const firstDueQueries = new WeakMap<Database, FirstDueQuery>();

/**
 * Advances a schedule past a fire, only if it still waits for the wake-up that fired:
 * a repeated alarm, or a change made meanwhile, finds nothing to advance and fires
 * nothing (the conditional update is the guard against double fires).
 */
export async function advancePastFire(
  db: Pick<Database, "update">,
  row: ScheduleRow,
  firedAt: Date,
  random: () => number,
  recordFire: boolean,
): Promise<boolean> {
  const advanced = await advancePastFireStatement(db, row, firedAt, random, recordFire);
  return advanced.length > 0;
}

/** Where a schedule goes after the fire at `firedAt` (a wake window draws its next time). */
export function planFire(row: ScheduleRow, firedAt: Date, random: () => number): WakePlan {
  return planAfterFire(triggerOf(row), { nextRunAt: row.nextRunAt!, windowFires: row.windowFires }, firedAt, random);
}

/**
 * advancePastFire's statement, not yet run (it returns the schedule's id when it advanced):
 * a fire's opening runs it as the claim inside its own one statement.
 */
export function advancePastFireStatement(
  db: Pick<Database, "update">,
  row: ScheduleRow,
  firedAt: Date,
  random: () => number,
  recordFire: boolean,
  plan: WakePlan = planFire(row, firedAt, random),
) {
  return db
    .update(schedules)
    .set({
      nextRunAt: plan.nextRunAt,
      windowFires: plan.windowFires,
      ...(recordFire ? { lastRunAt: firedAt } : {}),
      updatedAt: sql`now()`,
    })
    .where(and(eq(schedules.id, row.id), eq(schedules.nextRunAt, row.nextRunAt!), eq(schedules.paused, false)))
    .returning({ id: schedules.id });
}

/** SCHED-012: a guild's routines turned back on replan its unpaused schedules that are already due. */
export async function replanDueAfterReenable(db: Database, guildId: string, now: Date, random: () => number): Promise<string[]> {
  const due = await db
    .select({ schedule: schedules })
    .from(schedules)
    .innerJoin(agents, eq(agents.id, schedules.agentId))
    .where(and(eq(agents.guildId, guildId), eq(schedules.paused, false), lte(schedules.nextRunAt, now)));
  for (const { schedule } of due) {
    const plan = freshPlan(triggerOf(schedule), now, random);
    await db.update(schedules).set({ nextRunAt: plan.nextRunAt, windowFires: 0, updatedAt: sql`now()` }).where(eq(schedules.id, schedule.id));
  }
  return [...new Set(due.map((d) => d.schedule.agentId))];
}
