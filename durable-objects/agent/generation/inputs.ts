import { eq, sql } from "drizzle-orm";
import type { Env } from "../../../bindings/env";
import { readGenerationState } from "../../../core/db/agent-state";
import type { Database } from "../../../core/db/client";
import { writeMemory } from "../../../core/db/memory";
import { runs } from "../../../core/db/schema";
import { readSealedSecrets } from "../../../core/db/secret-rows";
import type { SecretRef } from "../../../core/db/secrets";
import type { RunError } from "../../../core/db/transcript";
import { describeError, logEvent } from "../../../core/output/log";
import { platformRedactor, type SecretValue } from "../../../core/output/redaction";
import { providerForGeneration } from "../../../core/providers/provider";
import { mcpToolNames } from "../../../core/runs/mcp-snapshot";
import { executesScripts } from "../../../core/runs/script-snapshot";
import { offersSandbox } from "../../../core/sandbox/tools";
import { tavilySearch } from "../../../core/search/tavily";
import { keySetFrom } from "../../../core/secrets/crypto";
import { openResolvedSecrets } from "../../../core/secrets/open";
import { mcpTool } from "../../../core/tools/mcp";
import { nativeToolNames, offeredTools } from "../../../core/tools/registry";
import { scriptTool } from "../../../core/tools/scripts";
import { TAVILY_SEARCH } from "../../../core/tools/search";
import type { SandboxAccess } from "../../../core/tools/types";
import type { EnsureRequest } from "../../sandbox/inputs";
import { type RunContext, schedulesChanged } from "../state/context";
import type { RunSession } from "../state/run-session";
import type { GenerationInputs } from "./generation";
import { redactedMemory, redactedPosts, redactedSchedules } from "./redacted-effects";
import { GenerationRepositories } from "./repositories";
import { generationBounds } from "./request-bounds";
import { GenerationBox } from "./tools/box";
import { groupChatOf } from "./tools/group-chat";
import { r2ToolImages } from "./tools/images";
import { openMcpCalls } from "./tools/mcp";
import { scheduleTools } from "./tools/schedules";
import { materialiseRunScripts, scriptTools } from "./tools/scripts";
import { secretTools } from "./tools/secrets";
import { PostgresToolStore } from "./tools/store";

/**
 * Everything one generation needs, gathered at its start: the provider and its key
 * (or the reason none may be called), the run's secrets refreshed, the tools it was
 * offered and their stores, this month's spend, the request bounds. A refusal is a
 * generation-start error: no model call is made (ERR-008).
 */
export async function generationInputs(
  context: RunContext,
  session: RunSession,
  generation: number,
  signal: AbortSignal,
): Promise<{ ok: true; generation: GenerationInputs } | { ok: false; error: RunError }> {
  const { env } = context;
  const db = context.database.db();
  const now = () => context.now();
  // Taken first: what rode along with this generation's first write is never left for a later one.
  const opened = session.openedWith;
  session.openedWith = null;
  const failed = (code: string, message: string) => ({
    ok: false as const,
    error: { code, message, generation, operation: "generation.start", at: new Date(now()).toISOString() },
  });
  const spend = await startReads(db, session, opened, new Date(now()));
  const secrets = await openSecrets(db, env, session);
  if (!secrets.ok) return failed(secrets.code, secrets.message);
  // Tokens an earlier generation minted stay in the set while valid (SEC-018).
  const earlier = (await context.redaction.generationStarting(session.runId, secrets.values, now())) ?? [];
  const provider = providerForGeneration(session.snapshot.model, env, secrets.values);
  if (!provider.ok) return failed(provider.code, provider.message);
  const bounds = generationBounds(env, { baseURL: provider.provider.baseURL, model: session.snapshot.model.model }, () => context.now());
  const { agentId } = session.scope;
  const box = generationBox(context, db, session, secrets.values);
  // shell and the browser tools ensure the box now (GEN-007); scripts alone at their first
  // run, or now when the box is up anyway (its folder is then materialised at the start).
  if (box && (offersSandbox(boxTools(session)) || context.box.running())) {
    const ensured = await box.ensure();
    if (!ensured.ok) return failed(ensured.code, ensured.message);
  }
  // REPO-001: a coding agent's repositories once its box is up; minted tokens join the redaction set.
  const tokens: SecretValue[] = [...earlier];
  const holder: { inputs?: GenerationInputs } = {};
  const started = box?.started;
  // A task run's box never holds an installation token: its git goes through the gateway (TASK-011).
  const repositories =
    session.snapshot.flags.coding && started && session.facts.kind !== "task"
      ? await GenerationRepositories.load({
          db,
          env,
          session,
          access: started,
          redact: async (values, expiresAt) => {
            tokens.push(...values);
            if (holder.inputs) holder.inputs.redactor = holder.inputs.redactor.withSecrets(values);
            await context.redaction.tokensMinted(session.runId, values, expiresAt, now());
          },
          now,
        })
      : null;
  if (repositories) {
    const prepared = await repositories.prepare(generation === 1);
    if (!prepared.ok)
      return failed(
        prepared.code,
        platformRedactor(env)
          .withSecrets([...secrets.values, ...tokens])
          .redact(prepared.message),
      );
  }
  // The run's MCP connections: their tokens join the set before any call (ERR-011), and stay
  // in the agent object, never in the box (SEC-013).
  const mcp = session.snapshot.mcp?.length ? await openMcpCalls({ db, env, session, signal }) : null;
  const redactor = () => holder.inputs!.redactor;
  const search = session.snapshot.tools.some((t) => t.function.name === TAVILY_SEARCH)
    ? tavilySearch({ apiKey: env.TAVILY_API_KEY, apiUrl: env.TAVILY_API_URL })
    : null;
  holder.inputs = {
    db,
    session,
    generation,
    signal,
    provider: { ...provider.provider, limits: bounds.replyLimits },
    tools: snapshotTools(session),
    store: new PostgresToolStore(db),
    // What the calls write where others read it carries no value of the set (ERR-011).
    ...(session.snapshot.flags.memory ? { memory: redactedMemory({ write: (content: string) => writeMemory(db, agentId, content) }, redactor) } : {}),
    ...(session.snapshot.flags.group_post ? { group: redactedPosts(groupChatOf(env, session), redactor) } : {}),
    schedules: redactedSchedules(
      scheduleTools(
        db,
        agentId,
        () => new Date(now()),
        () => context.random(),
        () => schedulesChanged(context, agentId),
      ),
      redactor,
    ),
    ...(box ? { sandbox: repositories ? inRepositories(box.access(), repositories) : box.access() } : {}),
    ...(repositories ? { repositories } : {}),
    ...(session.snapshot.flags.scripting
      ? { scripts: scriptTools({ db, env, session, box, forget: (change) => context.sessions.forgetScripts(change) }) }
      : {}),
    secrets: secretTools(db, env, session.scope, () => context.box.secretsChanged()),
    ...(mcp ? { mcp } : {}),
    // The run's redaction set: the platform's keys, this generation's secret values (SEC-014), GitHub tokens (SEC-018) and MCP tokens.
    redactor: platformRedactor(env).withSecrets([...secrets.values, ...tokens, ...(mcp?.tokens ?? [])]),
    pricing: provider.pricing,
    spend,
    hydrate: bounds.hydrate,
    toolImages: r2ToolImages(db, env.ATTACHMENTS, session.scope.organisationId),
    // From the agent object, never the box: the key stays in the platform (EXACT-015).
    ...(search ? { search } : {}),
  };
  return { ok: true, generation: holder.inputs };
}

/**
 * The box as a coding agent's tools use it: tokens near expiry minted again before each
 * command (REPO-012), and commands starting in the single repository (REPO-011).
 */
function inRepositories(access: SandboxAccess, repositories: GenerationRepositories): SandboxAccess {
  const cwd = repositories.workingDirectory;
  return {
    ...access,
    exec: async (input, signal) => {
      await repositories.refresh();
      return access.exec(cwd && input.cwd === undefined ? { ...input, cwd } : input, signal);
    },
  };
}

/**
 * The definitions behind the run's snapshotted schemas: the tools it was offered, no others
 * (EXACT-005); a snapshotted name of the snapshot's MCP list is a connection's tool, and
 * any other name no native tool has is a script's own tool (SCRIPT-022).
 */
function snapshotTools(session: RunSession) {
  const offered = new Set(session.snapshot.tools.map((t) => t.function.name));
  const native = offeredTools({ kind: session.facts.kind, ...session.snapshot.flags, search: offered.has(TAVILY_SEARCH) }).filter((d) => offered.has(d.name));
  const nativeNames = nativeToolNames();
  const mcpNames = mcpToolNames(session.snapshot.mcp);
  const own = session.snapshot.flags.scripting
    ? session.snapshot.tools.filter((t) => !nativeNames.has(t.function.name) && !mcpNames.has(t.function.name)).map(scriptTool)
    : [];
  const mcp = session.snapshot.tools.filter((t) => mcpNames.has(t.function.name)).map(mcpTool);
  return [...native, ...own, ...mcp];
}

/** The offered tools that may reach the box: an MCP tool never does, whatever its name looks like. */
function boxTools(session: RunSession) {
  const mcpNames = mcpToolNames(session.snapshot.mcp);
  return session.snapshot.tools.filter((t) => !mcpNames.has(t.function.name));
}

/**
 * The box of this generation, for a run whose tools reach it (shell, the browser tools, or
 * a script tool that executes), or null. Its secrets go into the box's environment (SEC-005).
 */
function generationBox(context: RunContext, db: Database, session: RunSession, values: SecretValue[]): GenerationBox | null {
  const { snapshot } = session;
  const tools = boxTools(session);
  const scripts = snapshot.flags.scripting && executesScripts(tools, nativeToolNames());
  if (!offersSandbox(tools) && !scripts) return null;
  const request = ensureRequestOf(session, values);
  return new GenerationBox(
    () => context.box.generationStarting(request, db),
    async (access) => {
      if (!snapshot.flags.scripting) return;
      // A box whose folder could not be made still runs scripts: script_run writes its file first.
      await materialiseRunScripts(db, session, access.files).catch((error: unknown) => {
        logEvent("warn", { operation: "scripts.materialise", run_id: session.runId, agent_id: session.scope.agentId, ...describeError(error) });
      });
    },
  );
}

/** The box a run's generations ensure: a task run's is always the standard image (TASK-010). */
export function ensureRequestOf(session: RunSession, values: SecretValue[]): EnsureRequest {
  const { snapshot } = session;
  const task = session.facts.kind === "task";
  return {
    agentId: session.scope.agentId,
    flags: task ? { browser: false, coding: true } : { browser: snapshot.flags.browser, coding: snapshot.flags.coding },
    browserLanguage: snapshot.browser_language,
    secrets: values,
    secretIds: snapshot.secrets.map((s) => s.id),
  };
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
export async function openSecrets(db: Database, env: Env, session: RunSession) {
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
