import { eq, sql } from "drizzle-orm";
import type { Env } from "../../bindings/env";
import { readGenerationState } from "../../core/db/agent-state";
import type { Database } from "../../core/db/client";
import { writeMemory } from "../../core/db/memory";
import { runs } from "../../core/db/schema";
import { readSealedSecrets } from "../../core/db/secret-rows";
import type { SecretRef } from "../../core/db/secrets";
import type { RunError } from "../../core/db/transcript";
import { platformRedactor } from "../../core/output/redaction";
import { providerForGeneration } from "../../core/providers/provider";
import { offersSandbox } from "../../core/sandbox/tools";
import { keySetFrom } from "../../core/secrets/crypto";
import { openResolvedSecrets } from "../../core/secrets/open";
import { offeredTools } from "../../core/tools/registry";
import type { GenerationDeps } from "./generation";
import { groupChatOf } from "./group-run";
import { generationBounds } from "./request-bounds";
import type { RunSession } from "./run-session";
import type { EnsureRequest } from "./sandbox-inputs";
import type { GenerationSandbox } from "./sandbox-manager";
import { scheduleTools } from "./schedule-tools";
import { secretTools } from "./secret-tools";
import { r2ToolImages } from "./tool-images";
import { PostgresToolStore } from "./tool-store";

/** What a generation's start reads beside its run. */
export interface GenerationStart {
  db: Database;
  env: Env;
  session: RunSession;
  generation: number;
  signal: AbortSignal;
  now: () => number;
  /** Randomness of the wake-window planner (the schedule tools). */
  random: () => number;
  /** A schedule tool changed the agent's routines. */
  schedulesChanged: () => Promise<void>;
  /** secret_store changed a secret reaching the agent (SEC-011). */
  secretsChanged?: () => Promise<unknown>;
  /** Transient events of the run's stream (token deltas). */
  publish: (event: string, data: unknown) => void;
  /** Ensures the agent's box for a run that offers a sandbox tool (GEN-007, SBX-040). */
  sandbox?: (request: EnsureRequest) => Promise<GenerationSandbox>;
}

/**
 * Everything one generation needs, gathered at its start: the provider and its key
 * (or the reason none may be called), the run's secrets refreshed, the tools it was
 * offered and their stores, this month's spend, the request bounds. A refusal is a
 * generation-start error: no model call is made (ERR-008).
 */
export async function generationInputs(start: GenerationStart): Promise<{ ok: true; deps: GenerationDeps } | { ok: false; error: RunError }> {
  const { db, env, session, generation } = start;
  // Taken first: what rode along with this generation's first write is never left for a later one.
  const opened = session.openedWith;
  session.openedWith = null;
  const failed = (code: string, message: string) => ({
    ok: false as const,
    error: { code, message, generation, operation: "generation.start", at: new Date(start.now()).toISOString() },
  });
  const spend = await startReads(db, session, opened, new Date(start.now()));
  const secrets = await openSecrets(db, env, session);
  if (!secrets.ok) return failed(secrets.code, secrets.message);
  const provider = providerForGeneration(session.snapshot.model, env, secrets.values);
  if (!provider.ok) return failed(provider.code, provider.message);
  const bounds = generationBounds(env);
  const { agentId } = session.scope;
  // Only a run offering a sandbox tool ensures the box; its values go into the box's environment (SEC-005).
  const sandbox =
    start.sandbox && offersSandbox(session.snapshot.tools)
      ? await start.sandbox({
          agentId,
          flags: { browser: session.snapshot.flags.browser, coding: session.snapshot.flags.coding },
          browserLanguage: session.snapshot.browser_language,
          secrets: secrets.values,
          secretIds: session.snapshot.secrets.map((s) => s.id),
        })
      : null;
  if (sandbox && !sandbox.ok) return failed(sandbox.code, sandbox.message);
  return {
    ok: true,
    deps: {
      db,
      session,
      generation,
      signal: start.signal,
      provider: { ...provider.provider, limits: bounds.replyLimits },
      tools: snapshotTools(session),
      store: new PostgresToolStore(db),
      ...(session.snapshot.flags.memory ? { memory: { write: (content: string) => writeMemory(db, agentId, content) } } : {}),
      ...(session.snapshot.flags.group_post ? { group: groupChatOf(env, session) } : {}),
      schedules: scheduleTools(db, agentId, () => new Date(start.now()), start.random, start.schedulesChanged),
      ...(sandbox ? { sandbox: sandbox.access } : {}),
      secrets: secretTools(db, env, session.scope, start.secretsChanged),
      // The run's redaction set: the platform's keys and this generation's secret values (SEC-014).
      redactor: platformRedactor(env).withSecrets(secrets.values),
      pricing: provider.pricing,
      spend,
      hydrate: bounds.hydrate,
      toolImages: r2ToolImages(db, env.ATTACHMENTS, session.scope.organisationId),
      publish: start.publish,
      now: start.now,
    },
  };
}

/** The definitions behind the run's snapshotted schemas: the tools it was offered, no others (EXACT-005). */
function snapshotTools(session: RunSession) {
  const offered = new Set(session.snapshot.tools.map((t) => t.function.name));
  return offeredTools({ kind: session.facts.kind, ...session.snapshot.flags }).filter((d) => offered.has(d.name));
}

/**
 * What the generation's start must know fresh: the agent's secrets (written onto the
 * snapshot when they changed) and this month's spend, in one read; none of its own when
 * the write that started the generation read them alongside (see RunSession.openedWith).
 */
async function startReads(db: Database, session: RunSession, opened: RunSession["openedWith"], now: Date) {
  const { secrets, spend } = opened ?? (await readGenerationState(db, session.scope, now));
  if (secrets) await writeSecrets(db, session, secrets);
  return spend;
}

/**
 * Decrypts the secrets just written onto the snapshot (SEC-002); a deleted or undecryptable
 * one is a generation-start error (SEC-004). No read when none reach the agent.
 */
async function openSecrets(db: Database, env: Env, session: RunSession) {
  const { organisationId } = session.scope;
  const listed = session.snapshot.secrets;
  const sealed = new Map(
    (
      await readSealedSecrets(
        db,
        organisationId,
        listed.map((s) => s.id),
      )
    ).map((row) => [row.id, row]),
  );
  return openResolvedSecrets(
    () => keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS),
    organisationId,
    listed.map((s) => ({ id: s.id, name: s.name, sealed: sealed.get(s.id) })),
  );
}

/**
 * Each generation re-resolves the agent's secrets and writes the list onto the run
 * snapshot, so a later grant, removal or rename reaches an existing run (SEC-001..003,
 * EXACT-025). Names and descriptions only; one write, and only when the list changed.
 */
async function writeSecrets(db: Database, session: RunSession, current: SecretRef[]): Promise<void> {
  if (JSON.stringify(current) === JSON.stringify(session.snapshot.secrets)) return;
  await db
    .update(runs)
    .set({ snapshot: sql`jsonb_set(${runs.snapshot}, '{secrets}', ${JSON.stringify(current)}::jsonb)` })
    .where(eq(runs.id, session.runId));
  session.snapshot.secrets = current;
}
