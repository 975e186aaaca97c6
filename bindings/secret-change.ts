import type { Env } from "./env";
import { agentObject } from "./objects";

/** Agent objects told at once; the rest wait for a batch to finish. */
const BATCH = 25;

/**
 * Tells every agent a secret change reaches or reached (SEC-007..010, SBX-038): each
 * destroys its idle box now, or after its generation. A failure for one agent is
 * logged, not thrown: its box's fingerprint no longer matches, so its next ensure
 * recreates it anyway (SBX-010).
 */
export async function notifySecretsChanged(env: Env, agentIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(agentIds)];
  for (let i = 0; i < ids.length; i += BATCH) {
    const settled = await Promise.allSettled(ids.slice(i, i + BATCH).map((id) => agentObject(env, id).secretsChanged()));
    settled.forEach((result, j) => {
      if (result.status === "rejected") {
        console.error(JSON.stringify({ level: "warn", operation: "secret.change_notify", agent_id: ids[i + j], error: String(result.reason).slice(0, 300) }));
      }
    });
  }
}
