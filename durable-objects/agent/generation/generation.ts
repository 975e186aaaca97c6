import { untilAborted } from "../../../core/async/until-aborted";
import type { Database } from "../../../core/db/client";
import { commitAssistantRow, type RunError } from "../../../core/db/transcript";
import { describeError, logEvent } from "../../../core/output/log";
import type { Redactor } from "../../../core/output/redaction";
import { redactedDeltas } from "../../../core/output/redaction-stream";
import { INTERRUPTED_RESULT, remainingAfter, toolOutput } from "../../../core/output/tool-output";
import { planProjection, STUB_FLOOR_BYTES } from "../../../core/projection/projection";
import { promptHash } from "../../../core/projection/prompt-hash";
import { redactedReply } from "../../../core/projection/stored-reply";
import { countRowTokens } from "../../../core/projection/token-count";
import type { ChatPayload, StoredRow } from "../../../core/projection/types";
import { providerErrorMessage } from "../../../core/providers/provider-error";
import { chainFull, HANDOFF_TOOL_RESULT, handoffDue, handoffRequest, MAX_CHAIN_RUNS } from "../../../core/runs/chain";
import { addSpend, budgetReached, budgetReachedMessage, TASK_BUDGET, type TaskBudget } from "../../../core/tasks/budget";
import { MEMORY_REMINDER, MEMORY_WRITE } from "../../../core/tools/memory";
import { runTool } from "../../../core/tools/registry";
import { storedToolCalls } from "../../../core/tools/secrets";
import type { NotesRecordsStore, SandboxAccess, ScheduleTools, ToolContext, ToolDefinition, ToolImage } from "../../../core/tools/types";
import { type Pricing, replyCost, usageMonth } from "../../../core/usage/pricing";
import { readReportedUsage } from "../../../core/usage/reported-usage";
import { limitReachedMessage, spendReached } from "../../../core/usage/reservation";
import { storableText, storableValue } from "../../../core/validation/storable";
import type { RunContext } from "../state/context";
import type { RowDraft, RunSession } from "../state/run-session";
import { endingWritten, type GenerationEnding, generationEnding, recordGenerationEnd } from "./ending";
import { callModel, type ModelReply, type ModelRequest, ProviderError } from "./model-call";
import type { ToolImageStore } from "./tools/images";

/** What one generation is given at its start (generation/inputs.ts), beside the agent's context. */
export interface GenerationInputs {
  /** The connection this generation writes through. */
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
  /** The agent's box, where the run offers a sandbox tool. */
  sandbox?: SandboxAccess;
  /** The agent's own secrets (secret_store). */
  secrets?: ToolContext["secrets"];
  /** The agent's scripts as this run sees them, when scripting is on. */
  scripts?: ToolContext["scripts"];
  /** The task a task run works on: its tools tell the run (TASK-015, TASK-016). */
  task?: ToolContext["task"];
  /** The run's MCP connections; closed when the generation ends, however it ends. */
  mcp?: ToolContext["mcp"] & { close(): Promise<void> };
  /** The platform's web search, where the run was offered tavily_search (EXACT-015). */
  search?: ToolContext["search"];
  /** A coding agent's repositories: the end checkpoint after the generation (REPO-015). */
  repositories?: { checkpointEnd(): Promise<void> };
  redactor: Redactor;
  pricing: Pricing;
  spend: { limitUsd: number | null; monthCostUsd: number; reservedUsd: number };
  /** A task run's budget figures (issue 33): checked before each model call, brought up to date by each reply. */
  budget?: TaskBudget;
  /** Where a tool's image (a browser screenshot) is kept for the model; none: the result says it was not kept. */
  toolImages?: ToolImageStore;
  /** Attachment hydration for the provider request (ATT-004); identity when none. */
  hydrate: (messages: ChatPayload[], rows: readonly StoredRow[]) => Promise<unknown[]>;
}

export interface GenerationOutcome {
  errors: RunError[];
  status: "active" | "completed";
  /** The run handed off (CHAIN-003): the reply's text, null when it had none. */
  handoff?: { text: string | null };
}

/**
 * One generation (GEN-009): up to max_steps model calls; each assistant row commits
 * with its usage before it is published; its tool calls run one after another, each
 * result through the output pipeline, each committed and published. Ends on a reply
 * without tool calls, a cap, a provider failure, cancellation, or a platform failure;
 * whichever it is, tool calls left open get interruption results and the run's status
 * follows its kind's rules, so the run stays valid and usable.
 */
export async function runGeneration(context: RunContext, inputs: GenerationInputs): Promise<GenerationOutcome> {
  const { session, generation } = inputs;
  const settings = session.snapshot.model;
  const errors: RunError[] = [];
  const fail = (code: string, message: string, extra: Record<string, unknown> = {}) =>
    errors.push({ code, message, generation, operation: (extra.operation as string) ?? "generation", at: new Date(context.now()).toISOString(), ...extra });

  // Group and schedule runs with Memory on must call memory_write: one reminder row and
  // one extra step when the generation returns without it (GROUP-006/007, SCHED-020).
  const memoryRequired =
    session.facts.kind !== "direct" && session.facts.kind !== "task" && session.snapshot.flags.memory && !session.facts.metadata.resumed_at;
  let wroteMemory = false;
  let reminded = false;
  // The ending the answer that ended the generation committed with (then nothing else is
  // written): an answer without tool calls, the only ending after which memory_skipped applies.
  let ended: GenerationEnding | undefined;
  let stepsAllowed = settings.max_steps;
  // Set when the run handed off (CHAIN-003): its text goes to the continuation.
  let handoff: GenerationOutcome["handoff"];

  try {
    for (let step = 1; step <= stepsAllowed; step++) {
      if (spendReached(inputs.spend)) {
        fail("usage.spend_limit", limitReachedMessage(inputs.spend.limitUsd!));
        break;
      }
      if (inputs.budget && budgetReached(inputs.budget)) {
        fail(TASK_BUDGET, budgetReachedMessage(inputs.budget));
        break;
      }
      const stepStarted = context.now();
      let plan = planNow(inputs);
      // A coding run at 70% hands off instead (CHAIN-002): the request row, then one call.
      const handingOff = handoffDue({ coding: session.snapshot.flags.coding, tokens: plan.keepTokens, maxInputTokens: settings.max_input_tokens });
      if (handingOff) {
        if (chainFull(session.facts.metadata)) {
          // OP-CHAIN-5: no hand-off row; the chain ends here (CHAIN-017).
          fail("generation.max_chain", `The chain reached its ${MAX_CHAIN_RUNS} runs; no hand-off was made. Start a new run.`, { tokens: plan.keepTokens });
          break;
        }
        await commitRow(inputs, "user", { role: "user", content: handoffRequest(settings.projection_policy_version) }, { source: "handoff" });
        plan = planNow(inputs);
      }
      if (!plan.fits) {
        fail(
          "generation.max_input_tokens",
          `The prompt needs ${plan.tokens} tokens, above max_input_tokens ${settings.max_input_tokens}; no model call was made. Start a new run.`,
          { tokens: plan.tokens },
        );
        break;
      }
      const planned = context.now();
      const hash = await promptHash(plan.messages, session.snapshot.tools, settings.model);
      const hashed = context.now();
      let reply: ModelReply;
      // A secret split across deltas never shows (ERR-011): a tail that may start one waits.
      const deltas = redactedDeltas(
        () => inputs.redactor,
        (kind, text) => context.hub.publish(session.runId, "delta", { run_id: session.runId, generation, kind, text }),
      );
      try {
        reply = await callModel({
          ...inputs.provider,
          model: settings.model,
          messages: await inputs.hydrate(plan.messages, session.rows),
          tools: session.snapshot.tools,
          thinkingLevel: settings.thinking_level,
          signal: inputs.signal,
          redactor: inputs.redactor,
          onDelta: deltas.push,
        });
        deltas.flush();
      } catch (error) {
        deltas.flush();
        if (inputs.signal.aborted) throw error;
        const provider = error instanceof ProviderError ? error : new ProviderError(String(error), null, null);
        fail(provider.code, providerErrorMessage(provider.message, inputs.redactor), {
          operation: "model.call",
          http_status: provider.httpStatus,
          provider_code: provider.providerCode,
          // A rate limit's reset, when the provider said it (TASK-027).
          ...(provider.resetAt !== null ? { reset_at: new Date(provider.resetAt).toISOString() } : {}),
        });
        logEvent(
          "error",
          {
            operation: "model.call",
            run_id: session.runId,
            agent_id: session.scope.agentId,
            guild_id: session.scope.guildId,
            ...describeError(provider),
          },
          inputs.redactor,
        );
        break;
      }
      if (inputs.signal.aborted) throw new DOMException("cancelled", "AbortError");
      const answered = context.now();
      // The calls as stored: their ids must match the results' tool_call_id exactly.
      reply = { ...reply, toolCalls: storableValue(reply.toolCalls) };
      // secret_store values never reach the stored row; the calls run with them (OP-SEC-8).
      const stored = storedToolCalls(reply.toolCalls);
      if (stored.values.length) inputs.redactor = inputs.redactor.withSecrets(stored.values);
      // A secret the model echoes stays out of the row, and so out of the next call (ERR-011);
      // the calls still run with the model's own arguments.
      const committed = redactedReply({ ...reply, toolCalls: stored.calls }, inputs.redactor);
      // An answer without tool calls that needs no memory reminder ends the generation: the
      // run's ending is written in the answer's own statement.
      const ending =
        !handingOff && errors.length === 0 && reply.toolCalls.length === 0 && (!memoryRequired || wroteMemory || reminded)
          ? generationEnding(session, [], memoryRequired && !wroteMemory ? { memory_skipped: true } : undefined)
          : undefined;
      await commitAssistant(
        context,
        inputs,
        committed,
        plan,
        hash,
        { projection_ms: planned - stepStarted, hash_ms: hashed - planned, model_ms: answered - hashed },
        ending,
      );
      ended = ending;
      if (handingOff) {
        // The offered tools stay as snapshotted, so the reply may call one: none runs (CHAIN-004).
        for (const call of committed.toolCalls) {
          const payload: ChatPayload = { role: "tool", tool_call_id: call.id, content: HANDOFF_TOOL_RESULT };
          await commitRow(inputs, "tool", payload, { tool_name: call.function.name, tool_call_id: call.id, source: "handoff" });
        }
        handoff = { text: committed.content?.trim() ? committed.content : null };
        break;
      }
      if (ended) break;
      if (reply.toolCalls.length === 0) {
        // Memory is required and was not written: one reminder and one more step.
        reminded = true;
        stepsAllowed += 1;
        await commitRow(inputs, "user", { role: "user", content: MEMORY_REMINDER }, { source: "memory_reminder" });
        continue;
      }

      for (const call of reply.toolCalls) {
        if (inputs.signal.aborted) throw new DOMException("cancelled", "AbortError");
        const started = context.now();
        const result = await untilAborted(
          runTool(inputs.tools, call.function.name, call.function.arguments, {
            agentId: session.scope.agentId,
            runId: session.runId,
            toolCallId: call.id,
            now: () => new Date(context.now()),
            store: inputs.store,
            signal: inputs.signal,
            ...(inputs.schedules ? { schedules: inputs.schedules } : {}),
            ...(inputs.memory ? { memory: inputs.memory } : {}),
            ...(inputs.group ? { group: inputs.group } : {}),
            ...(inputs.sandbox ? { sandbox: inputs.sandbox } : {}),
            ...(inputs.secrets ? { secrets: inputs.secrets } : {}),
            ...(inputs.scripts ? { scripts: inputs.scripts } : {}),
            ...(inputs.task ? { task: inputs.task } : {}),
            ...(inputs.mcp ? { mcp: inputs.mcp } : {}),
            ...(inputs.search ? { search: inputs.search } : {}),
          }),
          inputs.signal,
        );
        if (call.function.name === MEMORY_WRITE && !result.content.startsWith("ERROR")) wroteMemory = true;
        const image = result.image ? await keepToolImage(inputs, result.image, call.function.name, call.id) : null;
        const text = image && "reason" in image ? `${result.content}\n[the image could not be shown: ${image.reason}]` : result.content;
        const remaining = remainingAfter(settings.max_tool_calls, session.toolResults + 1);
        const content = toolOutput({ text, redactor: inputs.redactor, remaining });
        await commitRow(
          inputs,
          "tool",
          { role: "tool", tool_call_id: call.id, content },
          {
            tool_name: call.function.name,
            tool_call_id: call.id,
            duration_ms: context.now() - started,
            ...(result.metadata ?? {}),
            ...(image && "ref" in image ? { attachments: [image.ref] } : {}),
          },
        );
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
    if (inputs.signal.aborted) {
      fail("generation.cancelled", "The operator cancelled the generation");
    } else {
      // A platform failure (the database gone for longer than a write waits, a bug): the
      // run ends this generation as its kind's rules say, like any other ending.
      logEvent(
        "error",
        { operation: "generation", run_id: session.runId, agent_id: session.scope.agentId, guild_id: session.scope.guildId, ...describeError(error) },
        inputs.redactor,
      );
      fail("generation.failed", "The generation failed on the platform side");
    }
    // If even this cannot be written, the next generation writes them before it starts.
    await interruptUnresolved(inputs.db, session, generation).catch(() => {});
  } finally {
    // One client per connection lived for this generation's calls (a cancelled call's notice is sent first).
    await inputs.mcp?.close().catch(() => {});
  }

  const status = ended ? endingWritten(session, ended) : await recordGenerationEnd(inputs.db, session, errors);
  return { errors, status, ...(handoff ? { handoff } : {}) };
}

/** The request view of the run's rows before the next model call (PROJ-*). */
function planNow(inputs: GenerationInputs) {
  const { session, generation } = inputs;
  const settings = session.snapshot.model;
  return planProjection({
    rows: session.rows,
    currentGeneration: generation,
    keep: settings.keep_tool_result_generations,
    floor: STUB_FLOOR_BYTES,
    maxInputTokens: settings.max_input_tokens,
    toolTokens: session.toolTokens,
    stubCounts: session.stubCounts,
  });
}

function commitAssistant(
  context: RunContext,
  inputs: GenerationInputs,
  reply: ModelReply,
  plan: { pressureStubbed: number[]; tokens: number },
  hash: string,
  timings: Record<string, number>,
  ending?: GenerationEnding,
) {
  const settings = inputs.session.snapshot.model;
  return commitReply(
    context,
    inputs,
    reply,
    {
      timings,
      projection: {
        policy_version: settings.projection_policy_version,
        keep: settings.keep_tool_result_generations,
        pressure_stubbed: plan.pressureStubbed,
        prompt_tokens_counted: plan.tokens,
        hash,
      },
    },
    ending,
  );
}

/**
 * Commits a model reply as the run's assistant row, with its usage metered into the five
 * counters in the same statement (USAGE-001) and the spend figures the next call checks
 * brought up to date. `extra` is laid over the row's metadata: how the prompt was made (the
 * platform's projection, or the harness call the model gateway relayed). `ending`: the reply
 * ends the generation, and the run's ending commits with it (the caller then tells the session).
 */
export async function commitReply(
  context: RunContext,
  inputs: GenerationInputs,
  reply: ModelReply,
  extra: Record<string, unknown>,
  ending?: GenerationEnding,
): Promise<void> {
  const { session, generation } = inputs;
  // A harness's calls are made (and priced) with the harness's model, which the snapshot names.
  const harnessModel = session.snapshot.harness?.settings.model;
  const model = typeof harnessModel === "string" ? harnessModel : session.snapshot.model.model;
  const payload: Extract<ChatPayload, { role: "assistant" }> = {
    role: "assistant",
    // A provider may stream what Postgres cannot store (NUL); it must not lose the reply.
    content: reply.content === null ? null : storableText(reply.content),
    ...(reply.toolCalls.length ? { tool_calls: reply.toolCalls } : {}),
  };
  const { usage, rejected } = readReportedUsage(reply.usage);
  if (Object.keys(rejected).length)
    logEvent(
      "warn",
      { operation: "model.usage_rejected", run_id: session.runId, agent_id: session.scope.agentId, guild_id: session.scope.guildId, rejected },
      inputs.redactor,
    );
  const priced = replyCost(model, usage, inputs.pricing);
  const metadata = {
    source: "model",
    model: storableText(reply.providerModel ?? model),
    usage,
    cost_usd: priced.cost,
    priced: priced.priced,
    price_source: priced.source,
    latency_ms: reply.latencyMs,
    first_token_ms: reply.firstTokenMs,
    finish_reason: reply.finishReason === null ? null : storableText(reply.finishReason),
    ...(reply.reasoning ? { reasoning: storableText(reply.reasoning) } : {}),
    ...(reply.reasoningBlocks.length ? { reasoning_blocks: storableValue(reply.reasoningBlocks) } : {}),
    ...extra,
  };
  const draft: RowDraft = { generation, role: "assistant", payload, metadata, tokenCount: countRowTokens(payload, {}) };
  const scope = { ...session.scope, month: usageMonth(new Date(context.now())) };
  const figures = {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cachedInputTokens: usage.cached_tokens ?? 0,
    reasoningTokens: usage.reasoning_tokens ?? 0,
    costUsd: priced.cost,
  };
  await session.commit(inputs.db, draft, async (db, row) => {
    const committed = await commitAssistantRow(db, row, scope, figures, ending);
    inputs.spend.monthCostUsd = committed.monthCostUsd;
    inputs.spend.reservedUsd = committed.reservedUsd;
    if (inputs.budget) addSpend(inputs.budget, priced.cost);
    return committed.row;
  });
}

/** A tool's image kept as an attachment the row references; a failure to keep it only costs the image. */
async function keepToolImage(inputs: GenerationInputs, image: ToolImage, toolName: string, toolCallId: string) {
  if (!inputs.toolImages) return { reason: "this run keeps no images" };
  try {
    return await inputs.toolImages(image, toolName, toolCallId);
  } catch (error) {
    logEvent(
      "warn",
      { operation: "tool.image", run_id: inputs.session.runId, agent_id: inputs.session.scope.agentId, ...describeError(error) },
      inputs.redactor,
    );
    return { reason: "it could not be stored" };
  }
}

export function commitRow(inputs: GenerationInputs, role: "tool" | "user", payload: ChatPayload, metadata: Record<string, unknown>) {
  return inputs.session.commit(inputs.db, {
    generation: inputs.generation,
    role,
    payload: payload as never,
    metadata,
    tokenCount: countRowTokens(payload, metadata),
  });
}

/**
 * Appends `ERROR: execution interrupted` for every unresolved tool call of the last
 * assistant row, so the next model request is valid (CANCEL-005/006). These results
 * carry no trailer and do not count against the budget.
 */
export async function interruptUnresolved(db: Database, session: RunSession, generation: number): Promise<void> {
  for (const call of session.unresolvedCalls()) {
    const payload: ChatPayload = { role: "tool", tool_call_id: call.id, content: INTERRUPTED_RESULT };
    const metadata = { tool_name: call.name, tool_call_id: call.id, source: "interruption" };
    await session.commit(db, { generation, role: "tool", payload: payload as never, metadata, tokenCount: countRowTokens(payload, metadata) });
  }
}
