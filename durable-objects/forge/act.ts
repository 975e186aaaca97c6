/**
 * What a webhook delivery does to the organisation's tasks: an issue labelled or an @-mention
 * files a task, a review or comment on a task's pull request becomes a task message, checks
 * completing reach the task (checks.ts). Called by the organisation's inbox (inbox.ts), one
 * delivery at a time per issue or pull request.
 */
import type { Env } from "../../bindings/env";
import type { Database } from "../../core/db/client";
import type { DeliveryResult, ForgeDelivery } from "../../core/github/webhook-event";

export interface ActDeps {
  env: Env;
  db: Database;
  now(): number;
}

export async function actOnDelivery(_deps: ActDeps, delivery: ForgeDelivery): Promise<DeliveryResult> {
  return { outcome: "ignored", detail: `not acted on yet: ${delivery.event.kind}` };
}
