import type { Env } from "../../bindings/env";
import { DeadlineLog } from "../common/deadline-log";
import type { DeadlineHandler } from "../common/deadlines";
import { RunLifecycle } from "./run/lifecycle";
import type { RunContext, RunListener } from "./state/context";
import { HEARTBEAT } from "./state/generation-lock";
import { migrateRunContext, openRunContext } from "./state/open-context";
import { DirectRuns } from "./triggers/direct";
import { GROUP_DELIVERY, GroupDelivery } from "./triggers/group";
import { SCHEDULE, ScheduleFiring } from "./triggers/schedule";

/** The agent object's rooms, built once per instance: the context and what works on it. */
export interface Rooms {
  readonly context: RunContext;
  /** The run lifecycle: the loop, cancel, resume, archive, recovery. */
  readonly runs: RunLifecycle;
  /** The operator's runs and messages. */
  readonly direct: DirectRuns;
  /** Schedule wake-ups on the object's alarm. */
  readonly schedules: ScheduleFiring;
  /** Group chat deliveries on the object's alarm. */
  readonly groupDeliveries: GroupDelivery;
  /** The last successful firings of the alarm's deadlines (diagnostics). */
  readonly firings: DeadlineLog;
  /**
   * Handlers by deadline kind; a kind that is not registered cannot be set over RPC, and a
   * stored entry of an unknown kind is dropped when it comes due.
   */
  readonly deadlineHandlers: Record<string, DeadlineHandler>;
}

/**
 * Builds the context and the rooms of an agent object. Loaded by the object's constructor
 * with a dynamic import, so an isolate that only serves the API never evaluates the run
 * loop, its tools, the model client or the schedule planner.
 *
 * @param clock the object's own clock and randomness, which tests replace
 */
export function openRooms(ctx: DurableObjectState, env: Env, clock: { now(): number; random(): number }): Rooms {
  const sql = ctx.storage.sql;
  const firings = new DeadlineLog(sql);
  const listeners: RunListener[] = [];
  const context = openRunContext(ctx, env, clock, {
    serves: { kind: "agent", agentId: ctx.id.name ?? null },
    onFired: (entry, firedAt) => firings.record(entry.name, entry.dueAt, firedAt),
    keepConnection: () => runs.recovery.busy,
    listeners,
  });
  const runs: RunLifecycle = new RunLifecycle(context);
  const schedules = new ScheduleFiring(context, runs);
  const groupDeliveries = new GroupDelivery(context, runs);
  // A delivery's cursor first, then the schedules: the order the agent's triggers go in when it is free.
  listeners.push(groupDeliveries, schedules);
  const deadlineHandlers: Record<string, DeadlineHandler> = {
    // Does nothing but succeed: lets operators and tests check the whole alarm path.
    probe: () => {},
    // Renews a running generation's lease; recovers one the object lost (CANCEL-006).
    [HEARTBEAT]: () => runs.heartbeat(),
    // The agent's earliest schedule wake-up (SCHED-006..010).
    [SCHEDULE]: (entry, _now, settle) => schedules.fire(entry, settle),
    // A queued group chat delivery (GROUP-009, GROUP-011).
    [GROUP_DELIVERY]: (entry) => groupDeliveries.fire(entry),
    // The sandbox's idle timer (SBX-031) and its periodic home save.
    ...context.box.handlers(),
  };
  migrateStorage(sql);
  return { context, runs, direct: new DirectRuns(context, runs), schedules, groupDeliveries, firings, deadlineHandlers };
}

/**
 * What the object runs on a call, loaded with the rooms rather than by a dynamic import at the
 * call: two objects of one isolate importing the same module for the first time at once
 * share the loading promise, and the second one's continuation then runs in the first's
 * I/O context (workerd refuses its storage and sockets there: "Cannot perform I/O on behalf
 * of a different Durable Object").
 */
export { runDiff } from "../sandbox/run-diff";
export { syncScriptsToBox } from "../sandbox/script-sync";
export { runVariants } from "./generation/variants";

/** Creates or upgrades the object's SQLite tables; run before any event reaches the object. */
export function migrateStorage(sql: SqlStorage): void {
  migrateRunContext(sql);
  DeadlineLog.migrate(sql);
}
