/**
 * One task's Durable Object (addressed by the task id): the single writer of its runs. It
 * starts a run when the organisation's queue says so, drives it (provisioning, preparing,
 * turns, waiting, finalizing), answers the git gateway for the run's credential, and
 * streams the task's events.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import { type Outcome, refuse } from "../../bindings/outcome";
import type { GitGrant, GitRefusalEvent } from "../../bindings/task-gateway";

/** What the queue hears when it asks a task to start a run. */
export type StartAnswer = Outcome<{ runId: string }>;

export class TaskObject extends DurableObject<Env> {
  /** Starts a run of the task, which the queue has marked running; refused when one is active (TASK-008). */
  async start(_taskId: string): Promise<StartAnswer> {
    return refuse(503, "task.runs_unavailable", "Task runs are not available in this build");
  }

  /** A message was queued for the task: a waiting run takes it at its next turn boundary (TASK-019). */
  async messageQueued(_taskId: string): Promise<void> {}

  /** A person cancelled the task or marked it done: the active run ends with outcome cancelled (TASK-030). */
  async stop(_taskId: string): Promise<void> {}

  /** Deletes the task's volume now (TASK-038); refused while a run is active. */
  async resetWorkspace(_taskId: string): Promise<Outcome<Record<never, never>>> {
    return refuse(503, "task.runs_unavailable", "Task runs are not available in this build");
  }

  /**
   * The git gateway asks whether `credential` is the active run's (TASK-014): the repository,
   * its base branch, the task's key and force-push setting, and an installation token when it
   * is; null otherwise.
   */
  async authorizeGit(_taskId: string, _credential: string): Promise<GitGrant | null> {
    return null;
  }

  /** The git gateway refused a push of the task's box (TASK-017): the run and the task's events hear of it. */
  async gitRefused(_taskId: string, _event: GitRefusalEvent): Promise<void> {}

  /** The task's Server-Sent Events: status changes, runs starting and ending, and the active run's rows. */
  async events(_taskId: string, _request: Request): Promise<Response> {
    return Response.json({ error: { code: "task.runs_unavailable", message: "Task runs are not available in this build" } }, { status: 503 });
  }
}
