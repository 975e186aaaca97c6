/**
 * What an ensure needs: the agent's flags, browser language and the secret values that
 * reach it. A generation takes them from its snapshot and the secrets it decrypted; the
 * Browser and CLI tabs read them fresh, as the agent's configuration says (SBX-023).
 */
import type { Env } from "../../bindings/env";
import type { Database } from "../../core/db/client";
import { readSandboxAgent } from "../../core/db/sandbox";
import { readSealedSecrets } from "../../core/db/secret-rows";
import { resolveSecrets } from "../../core/db/secrets";
import type { SecretValue } from "../../core/output/redaction";
import type { SandboxFlags } from "../../core/sandbox/metadata";
import { keySetFrom } from "../../core/secrets/crypto";
import { openResolvedSecrets } from "../../core/secrets/open";

export interface EnsureRequest {
  agentId: string;
  flags: SandboxFlags;
  browserLanguage: string;
  /** Values go into the box's environment only (SEC-005). */
  secrets: SecretValue[];
  secretIds: string[];
}

export type RequestOutcome = { ok: true; request: EnsureRequest } | { ok: false; code: string; message: string };

/** The ensure request of the agent as configured now, with its secrets decrypted. */
export async function currentEnsureRequest(db: Database, env: Env, agentId: string): Promise<RequestOutcome> {
  const agent = await readSandboxAgent(db, agentId);
  if (!agent) return { ok: false, code: "agent.not_found", message: "No such agent" };
  if (agent.archivedAt) return { ok: false, code: "agent.archived", message: "The agent is archived" };
  const listed = await resolveSecrets(db, agent);
  const sealed = new Map(
    (
      await readSealedSecrets(
        db,
        agent.organisationId,
        listed.map((s) => s.id),
      )
    ).map((row) => [row.id, row]),
  );
  const opened = await openResolvedSecrets(
    () => keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS),
    agent.organisationId,
    listed.map((s) => ({ id: s.id, name: s.name, sealed: sealed.get(s.id) })),
  );
  if (!opened.ok) return { ok: false, code: opened.code, message: opened.message.replace(/; no model call was made$/, "") };
  return {
    ok: true,
    request: {
      agentId,
      flags: { browser: agent.browser, coding: agent.coding },
      browserLanguage: agent.browserLanguage,
      secrets: opened.values,
      secretIds: listed.map((s) => s.id),
    },
  };
}
