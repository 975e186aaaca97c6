import type { Env } from "../../../../bindings/env";
import type { Database } from "../../../../core/db/client";
import { writeAgentSecret } from "../../../../core/secrets/agent-secret";
import { keySetFrom } from "../../../../core/secrets/crypto";
import type { ToolContext } from "../../../../core/tools/types";

/**
 * secret_store's store (SEC-011): the value sealed and granted to this agent alone, as the
 * secrets routes write it, then `changed` told, as any secret change tells the agents it
 * reaches (here the agent itself: its idle box goes after this generation). A refusal is an
 * error whose message the model reads.
 */
export function secretTools(
  db: Database,
  env: Env,
  scope: { agentId: string; organisationId: string },
  changed?: () => Promise<unknown>,
): NonNullable<ToolContext["secrets"]> {
  return {
    async store(input) {
      let keys: Awaited<ReturnType<typeof keySetFrom>>;
      try {
        keys = await keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS);
      } catch {
        throw new Error("secrets cannot be stored on this platform right now (no key-encryption key is configured)");
      }
      const outcome = await writeAgentSecret(db, keys, { ...scope, ...input }, false);
      if (!outcome.ok) throw new Error(outcome.message);
      await changed?.();
      return { created: outcome.created };
    },
  };
}
