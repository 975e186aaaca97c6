/**
 * The one builder of a RunContext, for the agent's object (agent/rooms.ts) and the task's
 * object (task/task-rooms.ts) alike: the deadlines on the object's one alarm, the
 * generation lock, the idle database connection, the run streams' hub, the session cache
 * (given the hub, so a committed row goes live without anything set from outside), the box
 * and the kept redaction values. What differs between the two objects is said in options.
 *
 * @example
 *   const context = openRunContext(ctx, env, clock, { serves: { kind: "task", taskId } });
 */
import type { Env } from "../../../bindings/env";
import { loadRows, toWireRow, type WireRow } from "../../../core/db/transcript";
import { platformRedactor } from "../../../core/output/redaction";
import { keySetFrom } from "../../../core/secrets/crypto";
import { type Deadline, DeadlineMultiplexer } from "../../common/deadlines";
import { IdleConnection } from "../../common/idle-connection";
import { hubLimits, SseHub } from "../../common/sse-hub";
import type { BoxIdentity } from "../../sandbox/lifecycle";
import { SandboxManager } from "../../sandbox/manager";
import type { RunContext, RunListener, Serves } from "./context";
import { GenerationLock } from "./generation-lock";
import { RedactionMemory } from "./redaction-memory";
import type { RowSink } from "./run-session";
import { SessionCache } from "./session-cache";

/** An idle object closes its database connection after this long. */
const IDLE_CLOSE_MS = 5_000;

export interface RunContextOptions {
  serves: Serves;
  /** Work outside a generation that keeps the connection open (recovery, a task run between turns). */
  keepConnection?: () => boolean;
  /** Work outside a generation that keeps the box (a task run between turns): no idle timer retires it meanwhile. */
  keepBox?: () => boolean;
  /** Told of every deadline that fired (the agent keeps the last firings for diagnostics). */
  onFired?: (entry: Deadline, firedAt: number) => void;
  /** Told of every committed row after the run's own stream (a task's stream shows its runs' rows). */
  onRow?: (runId: string, row: WireRow) => void;
  /** Which box this is and what it keeps (default: the agent's own box and home). */
  box?: { identity: BoxIdentity; archiveKey: () => string; seedKey?: () => string | null };
  /** The triggers, in the order they hear of runs ending (the agent's; none for a task). */
  listeners?: readonly RunListener[];
}

export function openRunContext(ctx: DurableObjectState, env: Env, clock: { now(): number; random(): number }, options: RunContextOptions): RunContext {
  const sql = ctx.storage.sql;
  const now = () => clock.now();
  const deadlines = new DeadlineMultiplexer(ctx.storage, now, options.onFired ? { onFired: options.onFired } : undefined);
  const lock = new GenerationLock(sql, deadlines, now);
  // Kept open while a generation holds the lock (which includes planning a delivery and
  // waiting for the group-history selector), while a session loads, and while the object
  // says so. Every room reaches it through the context, so there is one connection to
  // replace (the box's room holds the same one).
  const database: IdleConnection = new IdleConnection(env, IDLE_CLOSE_MS, () => Boolean(lock.active || sessions.busy || options.keepConnection?.()));
  const hub = new SseHub(
    (runId, after, limit) => context.database.use(async (db) => (await loadRows(db, runId, after, limit)).map(toWireRow)),
    hubLimits(env.MAX_RUN_SUBSCRIBERS, env.SSE_QUEUE_BYTES, 200),
  );
  const onRow = options.onRow;
  const rows: RowSink = onRow
    ? {
        publishRow: (runId, row) => {
          hub.publishRow(runId, row);
          onRow(runId, row);
        },
      }
    : hub;
  // Through the context, not the connection itself: a test takes the database away by replacing it there.
  const sessions: SessionCache = new SessionCache(
    () => context.database.db(),
    rows,
    () => lock.active?.runId,
  );
  const box = new SandboxManager({
    env,
    sql,
    multiplexer: deadlines,
    now,
    generating: () => lock.held() !== null || Boolean(options.keepBox?.()),
    waitUntil: (work) => ctx.waitUntil(work),
    database,
    ...(options.box ? { identity: options.box.identity, archiveKey: options.box.archiveKey, seedKey: options.box.seedKey } : {}),
  });
  const redaction = new RedactionMemory(
    sql,
    () => ctx.id.name,
    () => keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS),
  );
  const context: RunContext = {
    env,
    serves: options.serves,
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
    listeners: options.listeners ?? [],
  };
  return context;
}

/** Creates or upgrades the SQLite tables every run context uses; run before any event reaches the object. */
export function migrateRunContext(sql: SqlStorage): void {
  DeadlineMultiplexer.migrate(sql);
  GenerationLock.migrate(sql);
  SandboxManager.migrate(sql);
  RedactionMemory.migrate(sql);
}
