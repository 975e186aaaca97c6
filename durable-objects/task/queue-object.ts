/**
 * The organisation's task queue (addressed by the organisation id): on its alarm it starts
 * due tasks, oldest first, up to runs.maxConcurrent (TASK-006..008), and once an hour it
 * deletes stale task volumes (TASK-037). Its work (queue.ts) is imported when the object
 * first starts, so an isolate that starts only to serve the API never evaluates it.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import { taskObject } from "../../bindings/objects";
import type { TaskQueue, TaskStarter } from "./queue";

export type { TaskStarter };

export class TaskQueueObject extends DurableObject<Env> {
  /** The clock plans and sweeps read; tests replace it through `runInDurableObject`. */
  now: () => number = () => Date.now();
  /** How a task is asked to start: its object over RPC; tests put a recorder in its place. */
  starter: TaskStarter = { start: (taskId) => taskObject(this.env, taskId).start(taskId) };
  #queue!: TaskQueue;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { TaskQueue } = await import("./queue");
      this.#queue = new TaskQueue(ctx, env, this);
    });
  }

  /** Something changed (a task filed, a message, a run ended, settings): plan now. */
  wake(organisationId: string): Promise<void> {
    return this.#queue.wake(organisationId);
  }

  /** A task's resume time came, or the hourly sweep is due. */
  override alarm(): Promise<void> {
    return this.#queue.alarm();
  }
}
