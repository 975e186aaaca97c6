/**
 * What-if replay in the agent object: one recorded model call sent again with each variant's
 * settings, side by side. The same path a generation takes to the model (provider resolution
 * with its egress check, the key from the agent's secrets, reply bounds, image hydration,
 * callModel) and the same redaction of the answer (ERR-011, SEC-014) with the run's known
 * secret values; but no tools run, nothing reaches the transcript, and the generation lock is
 * neither taken nor waited for: a variant and the run's generation go on side by side.
 */
import { eq } from "drizzle-orm";
import { type Outcome, refuse } from "../../../bindings/outcome";
import { readGenerationState } from "../../../core/db/agent-state";
import { replayPrompt } from "../../../core/db/prompt-replay";
import { agents, promptVariants, runs } from "../../../core/db/schema";
import { readSealedSecrets } from "../../../core/db/secret-rows";
import {
  completeVariant,
  failPendingVariants,
  failVariant,
  reserveVariants,
  toWireVariant,
  type VariantError,
  type VariantRow,
  type WireVariant,
} from "../../../core/db/variants";
import { platformRedactor, type Redactor, type SecretValue } from "../../../core/output/redaction";
import { imageRefs } from "../../../core/projection/projection";
import { promptHash } from "../../../core/projection/prompt-hash";
import { redactedReply } from "../../../core/projection/stored-reply";
import { type GenerationProvider, providerForGeneration } from "../../../core/providers/provider";
import { providerErrorMessage } from "../../../core/providers/provider-error";
import type { RunSnapshot } from "../../../core/runs/snapshot";
import { keySetFrom } from "../../../core/secrets/crypto";
import { openResolvedSecrets } from "../../../core/secrets/open";
import { storedToolCalls } from "../../../core/tools/secrets";
import { replyCost, usageMonth } from "../../../core/usage/pricing";
import { readReportedUsage } from "../../../core/usage/reported-usage";
import { limitReachedMessage, promptTokensBound, worstCaseCost } from "../../../core/usage/reservation";
import { storableText, storableValue } from "../../../core/validation/storable";
import { batchIds, VARIANT_TIMEOUT_MS, type VariantCall, type VariantSettings, variantCall } from "../../../core/variants/request";
import { type RunContext, servedAgent } from "../state/context";
import { callModel, ProviderError, type ReplyLimits } from "./model-call";
import { generationBounds } from "./request-bounds";

/** What the Worker asks for: the recorded call (run and seq), who asks, and the variants. */
export interface VariantBatch {
  runId: string;
  seq: number;
  /** The API token's id. */
  requestedBy: string | null;
  variants: VariantSettings[];
}

/**
 * Runs a batch of variants to the end and answers them, in the order asked. Refused before
 * any model call when the organisation reached its spend limit (the error a generation
 * gets), when the batch's worst case does not fit under it beside the holds of calls in
 * flight, or when the run's secrets cannot be opened; a variant whose provider is refused
 * (a URL the egress rules refuse, a key not granted) is stored failed with the reason.
 * Each variant holds its worst-case cost from before its call until its real cost is
 * recorded or it fails (decision 0022).
 */
export async function runVariants(context: RunContext, batch: VariantBatch): Promise<Outcome<{ batch_id: string; variants: WireVariant[] }>> {
  const { env } = context;
  const now = new Date(context.now());
  const prepared = await context.database.use(async (db) => {
    const [found] = await db
      .select({ run: runs, guildId: agents.guildId, organisationId: agents.organisationId })
      .from(runs)
      .innerJoin(agents, eq(agents.id, runs.agentId))
      .where(eq(runs.id, batch.runId))
      .limit(1);
    // Only this agent's runs: the Worker addresses the run's agent, and no other object answers for it.
    const agentId = servedAgent(context);
    if (!found || (agentId && found.run.agentId !== agentId)) return null;
    const snapshot = found.run.snapshot as RunSnapshot;
    const replay = await replayPrompt(db, batch.runId, batch.seq, snapshot);
    const scope = { agentId: found.run.agentId, guildId: found.guildId, organisationId: found.organisationId };
    const state = await readGenerationState(db, scope, now);
    const sealed = new Map(
      (
        await readSealedSecrets(
          db,
          scope.organisationId,
          state.secrets.map((s) => s.id),
        )
      ).map((row) => [row.id, row]),
    );
    return { snapshot, replay, scope, state, resolved: state.secrets.map((s) => ({ id: s.id, name: s.name, sealed: sealed.get(s.id) })) };
  });
  if (!prepared) return refuse(404, "run.not_found", "No such run");
  const { snapshot, replay, scope, state } = prepared;
  if (!replay) return refuse(404, "message.not_found", `No assistant row at seq ${batch.seq}`);
  // Before opening secrets, as a generation's check; the hold below decides under the lock.
  if (state.spend.limitUsd !== null && state.spend.monthCostUsd >= state.spend.limitUsd) {
    return refuse(409, "usage.spend_limit", limitReachedMessage(state.spend.limitUsd));
  }
  const opened = await openResolvedSecrets(() => keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS), scope.organisationId, prepared.resolved);
  if (!opened.ok) return refuse(409, opened.code, opened.message);
  // The run's known values: the agent's secrets now, those its generations used, valid tokens.
  const kept = await context.redaction.forRun(batch.runId, context.now());
  const redactor = platformRedactor(env).withSecrets([...opened.values, ...kept]);

  const calls = batch.variants.map((settings) => variantCall({ model: snapshot.model, messages: replay.messages, tools: snapshot.tools }, settings));
  const hashes = await Promise.all(calls.map((call) => promptHash(call.messages, call.tools, call.model)));
  const providers = calls.map((call) => providerForGeneration(call, env, opened.values));
  const images = replay.rows.reduce((n, row) => n + imageRefs(row).length, 0);
  const batchId = crypto.randomUUID();
  const ids = batchIds(batch.variants.length, context.now());
  const month = usageMonth(now);
  const reserved = await context.database.use((db) =>
    reserveVariants(
      db,
      scope.organisationId,
      month,
      batch.variants.map((settings, i) => {
        const call = calls[i]!;
        const provider = providers[i]!;
        const inputTokens = promptTokensBound(call.messages, call.tools, images);
        return {
          id: ids[i]!,
          organisationId: scope.organisationId,
          runId: batch.runId,
          messageSeq: batch.seq,
          batchId,
          requestedBy: batch.requestedBy,
          settings,
          promptHash: hashes[i]!,
          // A variant whose provider is refused makes no call and holds nothing.
          reservedUsd: provider.ok ? worstCaseCost(call.model, { inputTokens, maxTokens: call.max_tokens }, provider.pricing) : 0,
        };
      }),
    ),
  );
  if (!("ok" in reserved)) return refuse(409, "usage.spend_limit", reserved.message);
  const stored = reserved.rows;
  const bounds = generationBounds(env);
  const settled = await Promise.allSettled(
    stored.map(async (row, i) => {
      const outcome = await oneVariant(calls[i]!, providers[i]!, {
        values: opened.values,
        redactor,
        hydrate: (m) => bounds.hydrate(m, replay.rows),
        limits: bounds.replyLimits,
      });
      await context.database.use(async (db) => {
        if ("error" in outcome) await failVariant(db, row.id, outcome.error, outcome.latencyMs);
        else await completeVariant(db, row.id, outcome, { ...scope, month });
      });
    }),
  );
  const thrown = settled.find((s) => s.status === "rejected");
  if (thrown) {
    // A variant whose settling threw (a write that failed) lets its hold go now, once every
    // call of the batch is over, not when its time runs out; a settled variant is not touched.
    const interrupted = { code: "variant.interrupted", message: "The variant was stopped before its answer was stored" };
    await context.database.use((db) => failPendingVariants(db, batchId, interrupted)).catch(() => {});
    throw thrown.reason;
  }
  const rows = await context.database.use((db) => db.select().from(promptVariants).where(eq(promptVariants.batchId, batchId)));
  const byId = new Map<string, VariantRow>(rows.map((r) => [r.id, r]));
  return { ok: true, batch_id: batchId, variants: stored.map((r) => toWireVariant(byId.get(r.id) ?? r)) };
}

interface CallTools {
  values: SecretValue[];
  redactor: Redactor;
  hydrate: (messages: VariantCall["messages"]) => Promise<unknown[]>;
  limits: ReplyLimits;
}

type VariantOutcome = { error: VariantError; latencyMs: number | null } | Parameters<typeof completeVariant>[2];

/** One variant's model call, its answer redacted as an assistant row's is, its cost priced as a generation's. */
async function oneVariant(call: VariantCall, provider: GenerationProvider, tools: CallTools): Promise<VariantOutcome> {
  if (!provider.ok) return { error: { code: provider.code, message: provider.message }, latencyMs: null };
  const started = Date.now();
  const signal = AbortSignal.timeout(VARIANT_TIMEOUT_MS);
  try {
    const reply = await callModel({
      ...provider.provider,
      limits: tools.limits,
      model: call.model,
      messages: await tools.hydrate(call.messages),
      tools: call.tools,
      thinkingLevel: call.thinking_level,
      ...(call.temperature !== null ? { temperature: call.temperature } : {}),
      ...(call.max_tokens !== null ? { maxTokens: call.max_tokens } : {}),
      signal,
      redactor: tools.redactor,
      onDelta: () => {},
    });
    const secretStore = storedToolCalls(storableValue(reply.toolCalls));
    const redactor = secretStore.values.length ? tools.redactor.withSecrets(secretStore.values) : tools.redactor;
    const words = redactedReply({ ...reply, toolCalls: secretStore.calls }, redactor);
    const { usage } = readReportedUsage(reply.usage);
    const priced = replyCost(call.model, usage, provider.pricing);
    return {
      answer: {
        content: words.content === null ? null : storableText(words.content),
        reasoning: words.reasoning ? storableText(words.reasoning) : null,
        tool_calls: words.toolCalls,
        finish_reason: reply.finishReason === null ? null : storableText(reply.finishReason),
        model: reply.providerModel === null ? null : storableText(redactor.redact(reply.providerModel)),
      },
      latencyMs: reply.latencyMs,
      usage: {
        inputTokens: usage.prompt_tokens,
        outputTokens: usage.completion_tokens,
        cachedInputTokens: usage.cached_tokens ?? 0,
        reasoningTokens: usage.reasoning_tokens ?? 0,
        costUsd: priced.cost,
      },
    };
  } catch (error) {
    const latencyMs = Date.now() - started;
    if (signal.aborted) {
      return { error: { code: "variant.timeout", message: `The model did not answer within ${VARIANT_TIMEOUT_MS / 1000} s; the call was stopped` }, latencyMs };
    }
    const failed = error instanceof ProviderError ? error : new ProviderError(String(error), null, null);
    return { error: { code: failed.code, message: providerErrorMessage(failed.message, tools.redactor), http_status: failed.httpStatus }, latencyMs };
  }
}
