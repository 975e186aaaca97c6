/**
 * Checks completing on a task's branch reach the task. A placeholder until the checks are
 * acted on: the dispatcher (act.ts) already hands `kind: "checks"` here.
 */
import type { DeliveryResult, ForgeDelivery } from "../../core/github/webhook-event";
import type { ActDeps } from "./act-deps";

export async function actOnChecks(_deps: ActDeps, _delivery: ForgeDelivery): Promise<DeliveryResult> {
  return { outcome: "ignored", detail: "checks are not acted on yet" };
}
