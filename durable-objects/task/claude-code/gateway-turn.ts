/**
 * A harness's turn as the model gateway serves it (decision 0032). Every model call the
 * harness in the box makes arrives here: the run must be live and within its spend limit,
 * the call goes to the agent's provider with the real key (upstream.ts), and the platform
 * writes the transcript from the traffic itself: the tool results the call carries become
 * tool rows, the reply becomes the assistant row with its usage metered and priced by the
 * platform. Nothing the harness reports is taken as a row's identity or its cost.
 *
 * The first failure (the spend limit, a provider error, a rate limit) ends the turn: that
 * call and every later one is answered with an error the harness reports and stops on, and
 * the turn's errors say why, as a platform generation's would.
 */

import { anthropicError } from "../../../bindings/model-gateway";
import { sha256Hex } from "../../../core/bytes/sha256";
import type { RunError } from "../../../core/db/transcript";
import { readWithin } from "../../../core/http/read-within";
import type { AssembledMessage } from "../../../core/model-gateway/message-stream";
import { type MessagesRequest, readMessagesRequest } from "../../../core/model-gateway/messages";
import { toolResultText } from "../../../core/model-gateway/to-chat";
import { platformUsage } from "../../../core/model-gateway/usage";
import { capUtf8, TOOL_OUTPUT_MAX_BYTES } from "../../../core/output/tool-output";
import type { ChatPayload } from "../../../core/projection/types";
import { providerErrorMessage } from "../../../core/providers/provider-error";
import { budgetReached, budgetReachedMessage, TASK_BUDGET } from "../../../core/tasks/budget";
import { limitReachedMessage, spendReached } from "../../../core/usage/reservation";
import { storableText, storableValue } from "../../../core/validation/storable";
import { commitReply, commitRow, type GenerationInputs } from "../../agent/generation/generation";
import type { ToolCall } from "../../agent/generation/model-call";
import type { RunContext } from "../../agent/state/context";
import { forwardCall, type ModelApi } from "./upstream";

/** A harness call's body: Claude Code's longest prompts are a few MiB. */
export const MAX_CALL_BYTES = 32 * 1024 * 1024;

export interface GatewayTurnDeps {
  context: RunContext;
  inputs: GenerationInputs;
  /** The model called and priced (the snapshot's harness model, else the agent's). */
  model: string;
  api: ModelApi;
  /** Where each call's exact request is kept (redacted), by its hash. */
  keepRequest(key: string, body: string): Promise<void>;
}

export class GatewayTurn {
  readonly errors: RunError[] = [];
  /** The model calls relayed this turn. */
  calls = 0;
  #ended: string | null = null;
  /** Calls are handled one after another: a call's tool results need the previous reply's row. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: GatewayTurnDeps) {}

  /**
   * Answers one call of the harness; never throws. Each call waits for the one before to be
   * done, its reply's row written: calls sent at once (a box is free to) are taken in turn.
   */
  relay(request: Request): Promise<Response> {
    let done!: () => void;
    const previous = this.#queue;
    this.#queue = new Promise<void>((resolve) => {
      done = resolve;
    });
    return previous
      .then(() => this.#relay(request, done))
      .catch((error: unknown) => {
        done();
        this.#fail("generation.failed", "The model gateway failed on the platform side", { detail: String(error) });
        return anthropicError(500, "api_error", "The platform's model gateway failed");
      });
  }

  /**
   * Settles once every call so far is done, its reply's row written, or after `boundMs` (a
   * reply the box never read to its end).
   */
  async idle(boundMs = 10_000): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.#queue, new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)))]);
    if (timer !== undefined) clearTimeout(timer);
  }

  /** Ends the turn for every later call (the harness was stopped, or the run is over). */
  end(reason: string): void {
    this.#ended ??= reason;
  }

  /** One call; `done` is called once the call is over: answered with an error, or its reply's row written. */
  async #relay(request: Request, done: () => void): Promise<Response> {
    let replying = false;
    try {
      const answer = await this.#forward(request, done);
      replying = answer.replying;
      return answer.response;
    } finally {
      if (!replying) done();
    }
  }

  async #forward(request: Request, done: () => void): Promise<{ response: Response; replying: boolean }> {
    const refused = (response: Response) => ({ response, replying: false });
    const { inputs, context } = this.deps;
    if (this.#ended) return refused(anthropicError(400, "invalid_request_error", `The platform ended this turn: ${this.#ended}`));
    const bytes = await readWithin(request.body, MAX_CALL_BYTES);
    if (bytes === null) return refused(anthropicError(413, "request_too_large", `A model call may carry at most ${MAX_CALL_BYTES} bytes`));
    const text = new TextDecoder().decode(bytes);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return refused(anthropicError(400, "invalid_request_error", "The request body is not JSON"));
    }
    // Claude Code may size a prompt first: an estimate, no provider call, nothing stored.
    if (new URL(request.url).pathname.endsWith("/count_tokens")) return refused(Response.json({ input_tokens: Math.ceil(bytes.byteLength / 4) }));
    const read = readMessagesRequest(json);
    if (!read.ok) return refused(anthropicError(400, "invalid_request_error", read.message));
    await this.#commitToolResults(read.request);
    if (spendReached(inputs.spend)) {
      const message = limitReachedMessage(inputs.spend.limitUsd!);
      this.#fail("usage.spend_limit", message);
      return refused(anthropicError(400, "invalid_request_error", `The platform ended this turn: ${message}`));
    }
    if (inputs.budget && budgetReached(inputs.budget)) {
      const message = budgetReachedMessage(inputs.budget);
      this.#fail(TASK_BUDGET, message);
      return refused(anthropicError(400, "invalid_request_error", `The platform ended this turn: ${message}`));
    }
    const started = context.now();
    const forwarded = await forwardCall({
      api: this.deps.api,
      baseURL: inputs.provider.baseURL,
      apiKey: inputs.provider.apiKey,
      model: this.deps.model,
      request: read.request,
      body: json as Record<string, unknown>,
      anthropicHeaders: pick(request.headers, ["anthropic-version", "anthropic-beta"]),
      signal: inputs.signal,
      now: () => context.now(),
    });
    if (!forwarded.ok) {
      const message = providerErrorMessage(forwarded.message, inputs.redactor);
      this.#fail("provider.error", message, {
        operation: "model.call",
        http_status: forwarded.status,
        ...(forwarded.resetAt !== null ? { reset_at: new Date(forwarded.resetAt).toISOString() } : {}),
      });
      return refused(anthropicError(400, "invalid_request_error", `The platform ended this turn: ${message}`));
    }
    this.calls += 1;
    // The exact request, redacted, kept by its hash: the row names it (prompt replay of harness calls).
    const stored = inputs.redactor.redact(forwarded.sent);
    const hash = await sha256Hex(stored);
    const key = `model-requests/${inputs.session.runId}/${hash}.json`;
    const kept = this.deps.keepRequest(key, stored).then(
      () => true,
      () => false,
    );
    // The row is written once the box has read the whole reply; the next call waits for it.
    forwarded.reply
      .then(
        async (reply) => this.#commitReply(reply, { started, hash, key, bytes: stored.length, kept: await kept }),
        (error: unknown) => {
          if (!inputs.signal.aborted) this.#fail("provider.error", providerErrorMessage(String(error), inputs.redactor), { operation: "model.call" });
        },
      )
      .catch((error: unknown) => this.#fail("generation.failed", "The reply's row could not be written", { detail: String(error) }))
      .finally(done);
    return {
      response: new Response(forwarded.stream, { status: 200, headers: { "content-type": forwarded.contentType, "cache-control": "no-store" } }),
      replying: true,
    };
  }

  /** The results of the previous reply's tool calls, as the harness sends them back: tool rows. */
  async #commitToolResults(request: MessagesRequest): Promise<void> {
    const { inputs } = this.deps;
    // The latest user message carries them (a system turn Claude Code adds may follow it).
    const last = request.messages.findLast((m) => m.role === "user");
    if (!last || typeof last.content === "string") return;
    const open = new Map(inputs.session.unresolvedCalls().map((c) => [c.id, c.name]));
    for (const block of last.content) {
      if (block.type !== "tool_result" || !open.has(block.tool_use_id)) continue;
      const content = capUtf8(inputs.redactor.redact(storableText(toolResultText(block))), TOOL_OUTPUT_MAX_BYTES).text;
      const payload: ChatPayload = { role: "tool", tool_call_id: block.tool_use_id, content };
      await commitRow(inputs, "tool", payload, {
        tool_name: open.get(block.tool_use_id),
        tool_call_id: block.tool_use_id,
        source: "harness",
        ...(block.is_error ? { is_error: true } : {}),
      });
      open.delete(block.tool_use_id);
    }
  }

  async #commitReply(reply: AssembledMessage, request: { started: number; hash: string; key: string; bytes: number; kept: boolean }): Promise<void> {
    const { inputs, context } = this.deps;
    if (reply.error) {
      this.#fail("provider.error", providerErrorMessage(reply.error.message, inputs.redactor), { operation: "model.call" });
      return;
    }
    const toolCalls: ToolCall[] = [];
    let text = "";
    let reasoning = "";
    for (const block of reply.content) {
      if (block.type === "text") text += block.text;
      else if (block.type === "thinking") reasoning += block.thinking;
      else if (block.type === "tool_use") {
        toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
        this.#taskTool(block.name, block.input);
      }
    }
    const redacted = text ? inputs.redactor.redact(text) : null;
    await commitReply(
      context,
      inputs,
      {
        content: redacted,
        toolCalls: storableValue(toolCalls.map((c) => ({ ...c, function: { ...c.function, arguments: inputs.redactor.redact(c.function.arguments) } }))),
        reasoning: reasoning ? inputs.redactor.redact(reasoning) : "",
        reasoningBlocks: [],
        usage: platformUsage(reply.usage).usage,
        finishReason: reply.stop_reason,
        latencyMs: context.now() - request.started,
        firstTokenMs: null,
        providerModel: reply.model || null,
      },
      {
        harness: "claude-code",
        request: { sha256: request.hash, bytes: request.bytes, ...(request.kept ? { key: request.key } : {}) },
      },
    );
  }

  /** complete_task and ask_question, as the harness's MCP tools name them: the task hears of them from the model's own reply. */
  #taskTool(name: string, input: unknown): void {
    const task = this.deps.inputs.task;
    const args = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
    if (!task) return;
    if (name.endsWith("complete_task")) task.complete(typeof args.summary === "string" ? args.summary : "");
    else if (name.endsWith("ask_question") && typeof args.question === "string") task.ask(args.question, args.blocking === true);
  }

  #fail(code: string, message: string, extra: Record<string, unknown> = {}): void {
    const { inputs, context } = this.deps;
    this.errors.push({
      code,
      message,
      generation: inputs.generation,
      operation: "generation",
      at: new Date(context.now()).toISOString(),
      ...extra,
    } as RunError);
    this.end(message);
  }
}

function pick(headers: Headers, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = headers.get(name);
    if (value) out[name] = value;
  }
  return out;
}
