/**
 * The organisation's task queue (addressed by the organisation id): on its alarm it starts
 * due tasks, oldest first, up to runs.maxConcurrent (TASK-006..008), and once an hour it
 * deletes stale task volumes (TASK-037).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";

export class TaskQueueObject extends DurableObject<Env> {
  /** Something changed (a task filed, a message, a run ended): plan now. */
  async wake(_organisationId: string): Promise<void> {}
}
