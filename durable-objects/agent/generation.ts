import type { Database } from "../../core/db/client";
import { appendRow, commitAssistantRow, updateRun, type NewRow, type RunError, type WireRow } from "../../core/db/transcript";
import { describeError, logEvent } from "../../core/output/log";
import type { Redactor } from "../../core/output/redaction";
import { INTERRUPTED_RESULT, remainingAfter, toolOutput } from "../../core/output/tool-output";
import { planProjection, STUB_FLOOR_BYTES } from "../../core/projection/projection";
import { promptHash } from "../../core/projection/prompt-hash";
import { countRowTokens } from "../../core/projection/token-count";
import type { ChatPayload, StoredRow } from "../../core/projection/types";
import { statusAfterGeneration } from "../../core/runs/rules";
import { MEMORY_REMINDER, MEMORY_WRITE } from "../../core/tools/memory";
import { runTool } from "../../core/tools/registry";
import type { NotesRecordsStore, ScheduleTools, ToolContext, ToolDefinition } from "../../core/tools/types";
import { costUsd, usageMonth, type ModelPrice } from "../../core/usage/pricing";
import { callModel, ProviderError, type ModelReply, type ModelRequest } from "./model-call";
import type { RunSession } from "./run-session";
import { fromWire } from "./run-session";

/** Everything one generation needs from the agent object. */
export interface GenerationDeps {
  db: Database;
  session: RunSession;
  generation: number;
  signal: AbortSignal;
  provider: Pick<ModelRequest, "baseURL" | "apiKey" | "limits">;
  tools: ToolDefinition[];
  store: NotesRecordsStore;
  /** The schedule tools' store, where the run offers them. */
  schedules?: ScheduleTools;
  /** The agent's Memory document, when Memory is on. */
  memory?: { write(content: string): Promise<void> };
  /** The guild's chat, where the run offers group_post. */
  group?: ToolContext["group"];
  redactor: Redactor;
  prices: Record<string, ModelPrice>;
  spend: { limitUsd: number | null; monthCostUsd: number };
  /** Attachment hydration for the provider request (ATT-004); identity when none. */
  hydrate: (messages: ChatPayload[], rows: readonly StoredRow[]) => Promise<unknown[]>;
  publishRow: (row: WireRow) => void;
  publish: (event: string, data: unknown) => void;
  now: () => number;
}

export interface GenerationOutcome {
  errors: RunError[];
  status: "active" | "completed";
}

/**
 * One generation (GEN-009): up to max_steps model calls; each assistant row commits
 * with its usage before it is published; its tool calls run one after another, each
 * result through the output pipeline, each committed and published. Ends on a reply
 * without tool calls, a cap, a provider failure, or cancellation.
 */
export async function runGeneration(deps: GenerationDeps): Promise<GenerationOutcome> {
  const { session, generation } = deps;
  const settings = session.snapshot.model;
  const errors: RunError[] = [];
  const fail = (code: string, message: string, extra: Record<string, unknown> = {}) =>
    errors.push({ code, message, generation, operation: extra.operation as string ?? "generation", at: new Date(deps.now()).toISOString(), ...extra });

  // Group and schedule runs with Memory on must call memory_write: one reminder row and
  // one extra step when the generation returns without it (GROUP-006/007, SCHED-020).
  const memoryRequired = session.facts.kind !== "direct" && session.snapshot.flags.memory && !session.facts.metadata.resumed_at;
  let wroteMemory = false;
  let reminded = false;
  let stepsAllowed = settings.max_steps;

  try {
    for (let step = 1; step <= stepsAllowed; step++) {
      if (deps.spend.limitUsd !== null && deps.spend.monthCostUsd >= deps.spend.limitUsd) {
        fail("usage.spend_limit", `The organisation reached its monthly spend limit of ${deps.spend.limitUsd} USD; no model call was made`);
        break;
      }
      const stepStarted = deps.now();
      const plan = planProjection({
        rows: session.rows,
        currentGeneration: generation,
        keep: settings.keep_tool_result_generations,
        floor: STUB_FLOOR_BYTES,
        maxInputTokens: settings.max_input_tokens,
        toolTokens: session.toolTokens,
        stubCounts: session.stubCounts,
      });
      if (!plan.fits) {
        fail("generation.max_input_tokens", `The prompt needs ${plan.tokens} tokens, above max_input_tokens ${settings.max_input_tokens}; no model call was made. Start a new run.`, { tokens: plan.tokens });
        break;
      }
      const planned = deps.now();
      const hash = await promptHash(plan.messages, session.snapshot.tools, settings.model);
      const hashed = deps.now();
      let reply: ModelReply;
      try {
        reply = await callModel({
          ...deps.provider,
          model: settings.model,
          messages: await deps.hydrate(plan.messages, session.rows),
          tools: session.snapshot.tools,
          thinkingLevel: settings.thinking_level,
          signal: deps.signal,
          onDelta: (kind, text) => deps.publish("delta", { run_id: session.runId, generation, kind, text }),
        });
      } catch (error) {
        if (deps.signal.aborted) throw error;
        const provider = error instanceof ProviderError ? error : new ProviderError(String(error), null, null);
        fail(provider.code, deps.redactor.redact(provider.message), { operation: "model.call", http_status: provider.httpStatus, provider_code: provider.providerCode });
        logEvent("error", {
          operation: "model.call", run_id: session.runId, agent_id: session.scope.agentId, guild_id: session.scope.guildId,
          ...describeError(provider),
        }, deps.redactor);
        break;
      }
      if (deps.signal.aborted) throw new DOMException("cancelled", "AbortError");
      const answered = deps.now();
      await commitAssistant(deps, reply, plan, hash, { projection_ms: planned - stepStarted, hash_ms: hashed - planned, model_ms: answered - hashed });
      if (reply.toolCalls.length === 0) {
        if (!memoryRequired || wroteMemory || reminded) break;
        reminded = true;
        stepsAllowed += 1;
        await append(deps, "user", { role: "user", content: MEMORY_REMINDER }, { source: "memory_reminder" });
        continue;
      }

      for (const call of reply.toolCalls) {
        if (deps.signal.aborted) throw new DOMException("cancelled", "AbortError");
        const started = deps.now();
        const result = await runTool(deps.tools, call.function.name, call.function.arguments, {
          agentId: session.scope.agentId,
          runId: session.runId,
          toolCallId: call.id,
          now: () => new Date(deps.now()),
          store: deps.store,
          ...(deps.schedules ? { schedules: deps.schedules } : {}),
          ...(deps.memory ? { memory: deps.memory } : {}),
          ...(deps.group ? { group: deps.group } : {}),
        });
        if (call.function.name === MEMORY_WRITE && !result.content.startsWith("ERROR")) wroteMemory = true;
        const remaining = remainingAfter(settings.max_tool_calls, session.toolResults + 1);
        const content = toolOutput({ text: result.content, redactor: deps.redactor, remaining });
        await append(deps, "tool", { role: "tool", tool_call_id: call.id, content }, {
          tool_name: call.function.name,
          tool_call_id: call.id,
          duration_ms: deps.now() - started,
          ...(result.metadata ?? {}),
        });
      }
      if (session.toolResults >= settings.max_tool_calls) {
        fail("generation.max_tool_calls", `The run used its ${settings.max_tool_calls} tool calls; start a new run`);
        break;
      }
      if (step === stepsAllowed) {
        fail("generation.max_steps", `The generation reached max_steps (${settings.max_steps}) while the model still called tools`);
      }
    }
  } catch (error) {
    if (!deps.signal.aborted) throw error;
    await interruptUnresolved(deps.db, session, generation, deps.publishRow);
    fail("generation.cancelled", "The operator cancelled the generation");
  }

  const status = statusAfterGeneration(session.facts, errors.map((e) => e.code));
  const memorySkipped = memoryRequired && !wroteMemory;
  await updateRun(deps.db, session.runId, { status, errors, ...(memorySkipped ? { metadata: { memory_skipped: true } } : {}) });
  if (memorySkipped) session.facts = { ...session.facts, metadata: { ...session.facts.metadata, memory_skipped: true } };
  session.facts = { ...session.facts, status, errors: [...session.facts.errors, ...errors] };
  return { errors, status };
}

async function commitAssistant(
  deps: GenerationDeps,
  reply: ModelReply,
  plan: { pressureStubbed: number[]; tokens: number },
  hash: string,
  timings: Record<string, number>,
) {
  const { session, generation } = deps;
  const settings = session.snapshot.model;
  const payload: Extract<ChatPayload, { role: "assistant" }> = {
    role: "assistant",
    content: reply.content,
    ...(reply.toolCalls.length ? { tool_calls: reply.toolCalls } : {}),
  };
  const usage = reply.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
  const priced = costUsd(settings.model, usage, deps.prices);
  const metadata = {
    source: "model",
    model: reply.providerModel ?? settings.model,
    usage,
    cost_usd: priced.cost,
    priced: priced.priced,
    latency_ms: reply.latencyMs,
    first_token_ms: reply.firstTokenMs,
    finish_reason: reply.finishReason,
    timings,
    ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
    projection: {
      policy_version: settings.projection_policy_version,
      keep: settings.keep_tool_result_generations,
      pressure_stubbed: plan.pressureStubbed,
      prompt_tokens_counted: plan.tokens,
      hash,
    },
  };
  const row: NewRow = {
    runId: session.runId, seq: session.nextSeq, generation, role: "assistant", payload, metadata,
    tokenCount: countRowTokens(payload, {}),
  };
  const committed = await commitAssistantRow(deps.db, row, { ...session.scope, month: usageMonth(new Date(deps.now())) }, {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cachedInputTokens: usage.cached_tokens ?? 0,
    reasoningTokens: usage.reasoning_tokens ?? 0,
    costUsd: priced.cost,
  });
  deps.spend.monthCostUsd = committed.monthCostUsd;
  session.push(fromWire(committed.row, row.tokenCount));
  deps.publishRow(committed.row);
}

async function append(deps: GenerationDeps, role: "tool" | "user", payload: ChatPayload, metadata: Record<string, unknown>) {
  const { session } = deps;
  const tokenCount = countRowTokens(payload, metadata);
  const row = await appendRow(deps.db, {
    runId: session.runId, seq: session.nextSeq, generation: deps.generation, role, payload: payload as never, metadata, tokenCount,
  });
  session.push(fromWire(row, tokenCount));
  deps.publishRow(row);
}

/**
 * Appends `ERROR: execution interrupted` for every unresolved tool call of the last
 * assistant row, so the next model request is valid (CANCEL-005/006). These results
 * carry no trailer and do not count against the budget.
 */
export async function interruptUnresolved(db: Database, session: RunSession, generation: number, publishRow: (row: WireRow) => void) {
  for (const call of session.unresolvedCalls()) {
    const payload: ChatPayload = { role: "tool", tool_call_id: call.id, content: INTERRUPTED_RESULT };
    const metadata = { tool_name: call.name, tool_call_id: call.id, source: "interruption" };
    const tokenCount = countRowTokens(payload, metadata);
    const row = await appendRow(db, { runId: session.runId, seq: session.nextSeq, generation, role: "tool", payload: payload as never, metadata, tokenCount });
    session.push(fromWire(row, tokenCount));
    publishRow(row);
  }
}
