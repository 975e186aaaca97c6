import type { Env } from "../../bindings/env";
import { loadRows, toWireRow } from "../../core/db/transcript";
import { platformRedactor } from "../../core/output/redaction";
import { keySetFrom } from "../../core/secrets/crypto";
import { DeadlineLog } from "../common/deadline-log";
import { type DeadlineHandler, DeadlineMultiplexer } from "../common/deadlines";
import { IdleConnection } from "../common/idle-connection";
import { hubLimits, SseHub } from "../common/sse-hub";
import { SandboxManager } from "../sandbox/manager";
import { RunLifecycle } from "./run/lifecycle";
import type { AgentContext, RunListener } from "./state/context";
import { GenerationLock, HEARTBEAT } from "./state/generation-lock";
import { RedactionMemory } from "./state/redaction-memory";
import { SessionCache } from "./state/session-cache";
import { DirectRuns } from "./triggers/direct";
import { GROUP_DELIVERY, GroupDelivery } from "./triggers/group";
import { SCHEDULE, ScheduleFiring } from "./triggers/schedule";

/** An idle object closes its database connection after this long. */
const IDLE_CLOSE_MS = 5_000;

/** The agent object's rooms, built once per instance: the context and what works on it. */
export interface Rooms {
  readonly context: AgentContext;
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
  const now = () => clock.now();
  const firings = new DeadlineLog(sql);
  const deadlines = new DeadlineMultiplexer(ctx.storage, now, {
    onFired: (entry, firedAt) => firings.record(entry.name, entry.dueAt, firedAt),
  });
  const lock = new GenerationLock(sql, deadlines, now);
  // Kept open while a generation holds the lock (which includes planning a delivery and
  // waiting for the group-history selector), while recovery runs and while a session loads.
  // The agent's rooms reach it through the context, so there is one connection to replace
  // (the box's room holds the same one).
  const database: IdleConnection = new IdleConnection(env, IDLE_CLOSE_MS, () => Boolean(lock.active || runs.recovery.busy || sessions.busy));
  const hub = new SseHub(
    (runId, after, limit) => context.database.use(async (db) => (await loadRows(db, runId, after, limit)).map(toWireRow)),
    hubLimits(env.MAX_RUN_SUBSCRIBERS, env.SSE_QUEUE_BYTES, 200),
  );
  const sessions: SessionCache = new SessionCache(
    () => context.database.db(),
    (session) => {
      session.publishRow = (row) => hub.publishRow(session.runId, row);
    },
    () => lock.active?.runId,
  );
  const box = new SandboxManager({
    env,
    sql,
    multiplexer: deadlines,
    now,
    generating: () => lock.held() !== null,
    waitUntil: (work) => ctx.waitUntil(work),
    database,
  });
  const redaction = new RedactionMemory(
    sql,
    () => ctx.id.name,
    () => keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS),
  );
  const listeners: RunListener[] = [];
  const context: AgentContext = {
    env,
    agentId: ctx.id.name ?? null,
    now,
    random: () => clock.random(),
    waitUntil: (work) => ctx.waitUntil(work),
    database,
    hub,
    lock,
    deadlines,
    sessions,
    redaction,
    box,
    log: platformRedactor(env),
    listeners,
  };
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
    [SCHEDULE]: (entry) => schedules.fire(entry),
    // A queued group chat delivery (GROUP-009, GROUP-011).
    [GROUP_DELIVERY]: (entry) => groupDeliveries.fire(entry),
    // The sandbox's idle timer (SBX-031) and its periodic home save.
    ...box.handlers(),
  };
  migrateStorage(sql);
  return { context, runs, direct: new DirectRuns(context, runs), schedules, groupDeliveries, firings, deadlineHandlers };
}

/** Creates or upgrades the object's SQLite tables; run before any event reaches the object. */
export function migrateStorage(sql: SqlStorage): void {
  DeadlineMultiplexer.migrate(sql);
  GenerationLock.migrate(sql);
  DeadlineLog.migrate(sql);
  SandboxManager.migrate(sql);
  RedactionMemory.migrate(sql);
}
