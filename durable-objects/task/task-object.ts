/**
 * One task's Durable Object (addressed by the task id): the single writer of its runs. It
 * starts a run when the organisation's queue says so, drives it (provisioning, preparing,
 * turns, waiting, finalizing), answers the git gateway for the run's credential, and
 * streams the task's events. Its work (task-control.ts, the agent's run loop with it) is
 * imported when the object first starts, never when an isolate only serves the API.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import type { Outcome } from "../../bindings/outcome";
import type { GitAuthorization, GitRefusalEvent } from "../../bindings/task-gateway";
import type { TaskEventData } from "../../core/events/streams";
import type { TaskStatus } from "../../core/tasks/outcome";
import type { TaskRunDriver } from "./run-driver";
import type { StartAnswer, TaskControl } from "./task-control";
import type { TaskRooms } from "./task-rooms";

export type { StartAnswer };

export class TaskObject extends DurableObject<Env> {
  /** The clock every room reads; tests replace it through `runInDurableObject`. */
  now: () => number = () => Date.now();
  random: () => number = () => Math.random();
  #control!: TaskControl;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { TaskControl } = await import("./task-control");
      this.#control = new TaskControl(ctx, env, this);
    });
  }

  /** The rooms, for tests that reach inside through `runInDurableObject`. */
  get rooms(): TaskRooms {
    return this.#control.rooms;
  }

  /** The run this instance drives, for tests. */
  get driver(): TaskRunDriver | null {
    return this.#control.driver;
  }

  /** The object's one alarm: runs whatever deadlines are due and re-arms at the next. */
  override alarm(): Promise<void> {
    return this.#control.alarm();
  }

  /** `GET /runs/:id/events?after=N`: a task run's own SSE stream, forwarded by the Worker. */
  override fetch(request: Request): Promise<Response> {
    return this.#control.fetch(request);
  }

  /** Starts a run of the task, which the queue has marked running; refused when one is active (TASK-008). */
  start(taskId: string): Promise<StartAnswer> {
    return this.#control.start(taskId);
  }

  /** A message was queued for the task: a waiting run takes it at its next turn boundary (TASK-019). */
  messageQueued(taskId: string): Promise<void> {
    return this.#control.messageQueued(taskId);
  }

  /** The task's checks were read again (ISSUE-33): its stream sends `task.checks`, and `task.status` when that moved. */
  checksRead(taskId: string, checks: TaskEventData["task.checks"], status: TaskStatus | null): void {
    this.#control.checksRead(taskId, checks, status);
  }

  /** A person changed the task's budget (issue 33): the active run checks its next model call against it. */
  budgetChanged(taskId: string, limitUsd: number | null): Promise<void> {
    return this.#control.budgetChanged(taskId, limitUsd);
  }

  /** A person cancelled the task or marked it done: the active run ends with outcome cancelled (TASK-030). */
  stop(taskId: string): Promise<void> {
    return this.#control.stop(taskId);
  }

  /** Deletes the task's volume now (TASK-038); refused while a run is active. */
  resetWorkspace(taskId: string): Promise<Outcome<Record<never, never>>> {
    return this.#control.resetWorkspace(taskId);
  }

  /** The task's Server-Sent Events: status changes, runs starting and ending, the pull request, and the latest run's rows. */
  events(taskId: string, request: Request): Promise<Response> {
    return this.#control.events(taskId, request);
  }

  /** The git gateway asks whether `credential` is the task's active run's (TASK-011): its grant, or null. */
  authorizeGit(taskId: string, credential: string): Promise<GitAuthorization | null> {
    return this.#control.authorizeGit(taskId, credential);
  }

  /** The gateway refused a push of the task's run (TASK-014): the transcript shows it after the turn. */
  gitRefused(taskId: string, event: GitRefusalEvent): Promise<void> {
    return this.#control.gitRefused(taskId, event);
  }
}
