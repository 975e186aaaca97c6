import { isDatabaseUnavailable } from "../../../core/db/client";
import { advancePastFire, advancePastFireStatement, earliestWakeUp, firstDue, planFire, type ScheduleRow } from "../../../core/db/schedules";
import { describeError, logEvent } from "../../../core/output/log";
import { instructionHash, scheduleWakeUpMessage } from "../../../core/schedules/instruction";
import type { WakePlan } from "../../../core/schedules/wake-window";
import type { Deadline } from "../../common/deadlines";
import type { RunLifecycle } from "../run/lifecycle";
import type { RunContext, RunListener } from "../state/context";

/** The agent's one schedule deadline, armed at its earliest wake-up. */
export const SCHEDULE = "schedule";
/** A due schedule of a busy agent tries again this much later, without advancing (SCHED-008). */
export const BUSY_RETRY_MS = 30_000;

/**
 * The spec's 30-second ticker, as the agent object's alarm: the `schedule` deadline sits
 * at the agent's earliest unpaused next_run_at, so a wake-up fires at its planned time.
 * Firing opens one schedule run; other due schedules follow when the generation ends.
 */
export class ScheduleFiring implements RunListener {
  /**
   * Where the agent wakes next, as the last fire's own read and plan tell it: the generation's
   * end arms there without a read of its own. Good only while no refresh came after that
   * read (`refreshes` unchanged): every change to the schedules or the routines switch
   * refreshes, so a change during the run is never overwritten by what the fire knew.
   */
  #next: { at: Date | null; refreshes: number } | undefined;
  #refreshes = 0;

  constructor(
    private readonly context: RunContext,
    private readonly runs: RunLifecycle,
  ) {}

  /** The agent is free: a due schedule goes now, or the deadline moves to the next wake-up. */
  async idle(agentId: string): Promise<void> {
    const next = this.#next;
    this.#next = undefined;
    if (next?.refreshes === this.#refreshes) await this.arm(agentId, next.at);
    else await this.refresh(agentId);
  }

  /** A schedule tool changed the agent's routines. */
  async schedulesChanged(agentId: string): Promise<void> {
    await this.refresh(agentId);
  }

  /** Re-arms the deadline at the earliest wake-up that can fire, or clears it. */
  async refresh(agentId: string): Promise<string | null> {
    this.#refreshes++;
    this.#next = undefined;
    const at = await this.context.database.use((db) => earliestWakeUp(db, agentId));
    return this.arm(agentId, at);
  }

  /** The deadline at `at`, or none. */
  private async arm(agentId: string, at: Date | null): Promise<string | null> {
    if (!at) {
      await this.context.deadlines.clear(SCHEDULE);
      return null;
    }
    await this.context.deadlines.set(SCHEDULE, at.getTime(), { agent_id: agentId });
    return at.toISOString();
  }

  /**
   * The deadline handler. Once the lock is taken the deadline settles: the fire counts as
   * made and the deadline waits BUSY_RETRY_MS on, in the lock's own storage commit. The
   * generation's end re-arms it at the next wake-up (the `idle` hook); until then that
   * keeps it alive without a read of its own.
   */
  async fire(entry: Deadline, settle: (guardAt: number) => Promise<void>): Promise<void> {
    const agentId = (entry.payload as { agent_id?: string } | undefined)?.agent_id;
    if (!agentId) return;
    await this.runs.recovery.run();
    const now = new Date(this.context.now());
    if (this.context.lock.held()) {
      // Busy (a group delivery included): stay due, try again without advancing (SCHED-008).
      await this.context.deadlines.set(SCHEDULE, now.getTime() + BUSY_RETRY_MS, { agent_id: agentId });
      return;
    }
    const refreshes = this.#refreshes;
    const claims = this.context.lock.claims;
    const firing = await this.context.database.use(async (db) => {
      const due = await firstDue(db, agentId, now);
      if (!due?.routinesEnabled) return "idle" as const;
      try {
        const plan = planFire(due.schedule, now, this.context.random);
        const opened = await this.open(agentId, due.schedule, now, plan, {
          known: { state: due.opening, claims },
          claimed: () => settle(now.getTime() + BUSY_RETRY_MS),
        });
        if (opened === "started") this.#next = { at: earliest(due.othersAt, plan.nextRunAt), refreshes };
        return opened;
      } catch (error) {
        // The database, not the agent, failed: advancing here would lose the fire. It stays due
        // and the deadline tries it again after its backoff (SCHED-009). A retry cannot open it
        // twice: the advance and the opening are one statement, so after a lost answer the
        // retry finds the schedule advanced.
        if (isDatabaseUnavailable(error)) throw error;
        // A failed creation advances to the next planned wake-up, so one broken agent
        // does not tight-loop (SCHED-010).
        await advancePastFire(db, due.schedule, now, this.context.random, false);
        logEvent("error", { operation: "schedule.fire", agent_id: agentId, schedule_id: due.schedule.id, ...describeError(error) });
        return "failed" as const;
      }
    });
    if (firing === "busy") {
      await this.context.deadlines.set(SCHEDULE, now.getTime() + BUSY_RETRY_MS, { agent_id: agentId });
      return;
    }
    if (firing === "started") return;
    // Routines off (SCHED-007) or nothing due: arm at whatever can fire next.
    await this.refresh(agentId);
  }

  /**
   * A schedule wake-up (SCHED-013/014/017/018): in one statement the schedule advances
   * past this fire (only if it still waits for it) and the run opens with its system row
   * and the wake-up message. "skipped" when a repeated alarm or a change got there first.
   */
  private open(
    agentId: string,
    schedule: ScheduleRow,
    firedAt: Date,
    plan: WakePlan,
    options: Parameters<RunLifecycle["open"]>[3],
  ): Promise<"started" | "busy" | "skipped"> {
    return this.runs.open(
      agentId,
      firedAt,
      async (db) => ({
        kind: "schedule",
        run: { scheduleId: schedule.id, title: schedule.description, metadata: { instruction_hash: await instructionHash(schedule.instruction) } },
        wake: {
          role: "user",
          content: scheduleWakeUpMessage({
            id: schedule.id,
            cron: schedule.cron,
            window: schedule.wakeWindow,
            instruction: schedule.instruction,
            previous_run_at: schedule.lastRunAt,
          }),
        },
        wakeMetadata: { source: "schedule", schedule_id: schedule.id },
        claim: advancePastFireStatement(db, schedule, firedAt, this.context.random, true, plan).getSQL(),
      }),
      options,
    );
  }
}

function earliest(a: Date | null, b: Date | null): Date | null {
  if (!a || !b) return a ?? b;
  return a.getTime() <= b.getTime() ? a : b;
}
