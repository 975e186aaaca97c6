/**
 * The task object's rooms, built once per instance like the agent's (agent/rooms.ts): the
 * task's own AgentContext, so a task run generates with the agent's run and generation rooms
 * but under its own lock (one generation per task, never blocking the agent's direct chats
 * or its other tasks), its own sessions and streams, and a box that is the task's container
 * (`task:<id>`, the standard image) keeping /data in the task's volume object (TASK-010).
 */
import type { Env } from "../../bindings/env";
import { loadRows, toWireRow, type WireRow } from "../../core/db/transcript";
import { platformRedactor } from "../../core/output/redaction";
import { keySetFrom } from "../../core/secrets/crypto";
import { taskBoxName } from "../../core/tasks/credential";
import { volumeObjectKey } from "../../core/tasks/key";
import type { AgentContext } from "../agent/state/context";
import { GenerationLock } from "../agent/state/generation-lock";
import { RedactionMemory } from "../agent/state/redaction-memory";
import { SessionCache } from "../agent/state/session-cache";
import { DeadlineMultiplexer } from "../common/deadlines";
import { IdleConnection } from "../common/idle-connection";
import { hubLimits, SseHub } from "../common/sse-hub";
import { SandboxManager } from "../sandbox/manager";
import { TaskRunState } from "./run-state";
import { TaskStream } from "./stream";

/** An idle object closes its database connection after this long. */
const IDLE_CLOSE_MS = 5_000;

export interface TaskRooms {
  readonly context: AgentContext;
  /** The task's event stream (status, runs starting and ending, the active run's rows). */
  readonly stream: TaskStream;
  /** The run in flight and its gateway credential. */
  readonly state: TaskRunState;
  /** The task's volume in R2: set once the task is read (its repository and key name it). */
  readonly volume: { key: string | null };
  /** Whether a run is driven by this instance now. */
  busy: () => boolean;
}

/**
 * @param busy whether this instance drives a run (its connection stays open, its box is in use)
 */
export function openTaskRooms(ctx: DurableObjectState, env: Env, clock: { now(): number; random(): number }, busy: () => boolean): TaskRooms {
  const sql = ctx.storage.sql;
  const now = () => clock.now();
  const deadlines = new DeadlineMultiplexer(ctx.storage, now);
  const lock = new GenerationLock(sql, deadlines, now);
  const database: IdleConnection = new IdleConnection(env, IDLE_CLOSE_MS, () => Boolean(busy() || lock.active || sessions.busy));
  const hub = new SseHub(
    (runId, after, limit) => context.database.use(async (db) => (await loadRows(db, runId, after, limit)).map(toWireRow)),
    hubLimits(env.MAX_RUN_SUBSCRIBERS, env.SSE_QUEUE_BYTES, 200),
  );
  const stream = new TaskStream(env, () => context.database);
  const sessions: SessionCache = new SessionCache(
    () => context.database.db(),
    (session) => {
      session.publishRow = (row: WireRow) => {
        hub.publishRow(session.runId, row);
        stream.row(session.runId, row);
      };
    },
    () => lock.active?.runId,
  );
  const volume: { key: string | null } = { key: null };
  const taskBox = taskBoxName(ctx.id.name ?? ctx.id.toString());
  const box = new SandboxManager({
    env,
    sql,
    multiplexer: deadlines,
    now,
    // The box serves the whole run, between turns too: no idle timer retires it meanwhile.
    generating: () => busy() || lock.held() !== null,
    waitUntil: (work) => ctx.waitUntil(work),
    database,
    identity: { name: () => taskBox, archive: "data" },
    archiveKey: () => {
      if (!volume.key) throw new Error("the task's volume is not known yet");
      return volume.key;
    },
  });
  const redaction = new RedactionMemory(
    sql,
    () => ctx.id.name,
    () => keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS),
  );
  const context: AgentContext = {
    env,
    agentId: null,
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
    listeners: [],
  };
  migrateTaskStorage(sql);
  return { context, stream, state: new TaskRunState(sql), volume, busy };
}

/** The R2 key of a task's volume. */
export const taskVolumeKey = (task: { repositoryId: string; key: string }) => volumeObjectKey(task.repositoryId, task.key);

/** Creates or upgrades the object's SQLite tables; run before any event reaches the object. */
export function migrateTaskStorage(sql: SqlStorage): void {
  DeadlineMultiplexer.migrate(sql);
  GenerationLock.migrate(sql);
  SandboxManager.migrate(sql);
  RedactionMemory.migrate(sql);
  TaskRunState.migrate(sql);
}
