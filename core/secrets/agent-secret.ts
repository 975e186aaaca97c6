/**
 * Writing a secret that reaches one agent: the secret_store tool (SEC-011, OP-SEC-6) and the
 * operator's answer to a secret_request (OP-SEC-5). Both seal the value as the secrets routes
 * do and leave the same rows behind (a secret and its agent grant), so every reader of
 * secrets (generation start re-resolving them, SEC-002) sees the change like any other.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AnyDatabase } from "../db/client";
import { sqlState, UNIQUE_VIOLATION } from "../db/outage";
import { secretGrants, secrets } from "../db/schema";
import { reservedSecretName } from "../validation/secret-name";
import { type KeySet, sealSecret } from "./crypto";
import { reserveSecretSlot, SecretLimitReached } from "./limit";

export interface AgentSecretInput {
  organisationId: string;
  agentId: string;
  name: string;
  /** Kept as it is when empty and the secret exists. */
  description: string;
  value: string;
}

export type AgentSecretOutcome =
  | { ok: true; id: string; created: boolean }
  | { ok: false; code: "secret.shared" | "secret.name_taken" | "secret.limit_reached" | "secret.name_reserved"; message: string };

/**
 * Creates the organisation's secret `name` granted to this agent only, or replaces its value.
 * `sharedAllowed` false (the agent's own tool): a secret of that name that reaches anyone
 * else (org-wide, a guild, another agent, or nobody yet) is refused, so an agent cannot
 * overwrite a value other agents rely on. true (the operator): it is replaced and granted.
 * A reserved name (a request older than the rule may carry one) and a create past the
 * organisation's cap are refused too.
 *
 * @example await writeAgentSecret(db, keys, { organisationId, agentId, name: "API_TOKEN", description: "", value }, false)
 */
export async function writeAgentSecret(db: AnyDatabase, keys: KeySet, input: AgentSecretInput, sharedAllowed: boolean): Promise<AgentSecretOutcome> {
  const reserved = reservedSecretName(input.name);
  if (reserved) return { ok: false, code: "secret.name_reserved", message: `The secret name ${input.name} ${reserved}; choose another name` };
  try {
    return await db.transaction(async (tx) => {
      const [existing] = await tx
        .select({ id: secrets.id, orgWide: secrets.orgWide })
        .from(secrets)
        .where(and(eq(secrets.organisationId, input.organisationId), eq(secrets.name, input.name)))
        .for("update");
      if (!existing) {
        await reserveSecretSlot(tx, input.organisationId);
        // The id is chosen here because the ciphertext is bound to it.
        const id = crypto.randomUUID();
        const sealed = await sealSecret(keys, { organisationId: input.organisationId, secretId: id }, input.value);
        await tx
          .insert(secrets)
          .values({ id, organisationId: input.organisationId, name: input.name, description: input.description, orgWide: false, ...sealed });
        await tx.insert(secretGrants).values({ secretId: id, agentId: input.agentId });
        return { ok: true as const, id, created: true };
      }
      const grants = await tx
        .select({ agentId: secretGrants.agentId, guildId: secretGrants.guildId })
        .from(secretGrants)
        .where(eq(secretGrants.secretId, existing.id));
      const granted = grants.some((g) => g.agentId === input.agentId);
      const onlyThisAgent = !existing.orgWide && granted && grants.every((g) => g.agentId === input.agentId);
      if (!sharedAllowed && !onlyThisAgent) {
        return {
          ok: false as const,
          code: "secret.shared" as const,
          message: `A secret named ${input.name} already exists and is not yours alone; choose another name or ask the operator`,
        };
      }
      const sealed = await sealSecret(keys, { organisationId: input.organisationId, secretId: existing.id }, input.value);
      await tx
        .update(secrets)
        .set({ ...sealed, ...(input.description ? { description: input.description } : {}), updatedAt: sql`now()` })
        .where(eq(secrets.id, existing.id));
      if (!granted && !existing.orgWide) await tx.insert(secretGrants).values({ secretId: existing.id, agentId: input.agentId });
      return { ok: true as const, id: existing.id, created: false };
    });
  } catch (error) {
    if (error instanceof SecretLimitReached) return { ok: false, code: error.code, message: error.message };
    // Another writer created the name between the read and the insert.
    if (sqlState(error) === UNIQUE_VIOLATION) {
      return { ok: false, code: "secret.name_taken", message: `A secret named ${input.name} was just created by someone else; try again` };
    }
    throw error;
  }
}
