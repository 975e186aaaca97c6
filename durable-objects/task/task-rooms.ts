/**
 * The task object's rooms, built once per instance like the agent's (agent/rooms.ts): the
 * task's own RunContext, so a task run generates with the agent's run and generation rooms
 * but under its own lock (one generation per task, never blocking the agent's direct chats
 * or its other tasks), its own sessions and streams, and a box that is the task's container
 * (`task:<id>`, the standard image) keeping /data in the task's volume object (TASK-010).
 */
import type { Env } from "../../bindings/env";
import { taskBoxName } from "../../core/tasks/credential";
import { repositorySeedKey, volumeObjectKey } from "../../core/tasks/key";
import type { RunContext } from "../agent/state/context";
import { migrateRunContext, openRunContext } from "../agent/state/open-context";
import { TaskRunState } from "./run-state";
import { TaskStream } from "./stream";

export interface TaskRooms {
  readonly context: RunContext;
  /** The task's event stream (status, runs starting and ending, the active run's rows). */
  readonly stream: TaskStream;
  /** The run in flight and its gateway credential. */
  readonly state: TaskRunState;
  /** The task's volume in R2 and its repository's seed: set once the task is read (its repository and key name them). */
  readonly volume: { key: string | null; seed: string | null };
  /** Whether a run is driven by this instance now. */
  busy: () => boolean;
}

/**
 * @param busy whether this instance drives a run (its connection stays open, its box is in use)
 */
export function openTaskRooms(ctx: DurableObjectState, env: Env, clock: { now(): number; random(): number }, busy: () => boolean): TaskRooms {
  const volume: { key: string | null; seed: string | null } = { key: null, seed: null };
  const taskId = ctx.id.name ?? ctx.id.toString();
  const taskBox = taskBoxName(taskId);
  const context = openRunContext(ctx, env, clock, {
    serves: { kind: "task", taskId },
    keepConnection: busy,
    // The box serves the whole run, between turns too: no idle timer retires it meanwhile.
    keepBox: busy,
    onRow: (runId, row) => stream.row(runId, row),
    box: {
      identity: { name: () => taskBox, archive: "data" },
      archiveKey: () => {
        if (!volume.key) throw new Error("the task's volume is not known yet");
        return volume.key;
      },
      seedKey: () => volume.seed,
    },
  });
  const stream = new TaskStream(env, () => context.database);
  migrateTaskStorage(ctx.storage.sql);
  return { context, stream, state: new TaskRunState(ctx.storage.sql), volume, busy };
}

/** The R2 key of a task's volume. */
export const taskVolumeKey = (task: { repositoryId: string; key: string }) => volumeObjectKey(task.repositoryId, task.key);

/** Where a task's volume and its repository's seed are, in R2. */
export const taskVolumeKeys = (task: { repositoryId: string; key: string }) => ({ key: taskVolumeKey(task), seed: repositorySeedKey(task.repositoryId) });

/** Creates or upgrades the object's SQLite tables; run before any event reaches the object. */
export function migrateTaskStorage(sql: SqlStorage): void {
  migrateRunContext(sql);
  TaskRunState.migrate(sql);
}
