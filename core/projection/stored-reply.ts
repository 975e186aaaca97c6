/**
 * A model reply as it may be stored and sent on (ERR-011): its content, reasoning and tool
 * calls' arguments redacted with the run redaction set. A model that echoes a secret it
 * read (an environment variable, a file) leaves the marker in the transcript, never the value;
 * the row stored is also what the next model call sends (EXACT-003), so the replay stays exact.
 */

import type { Redactor } from "../output/redaction";
import type { ToolCall } from "./types";

/**
 * A tool call's arguments redacted. The JSON text is redacted as text, and when a value only
 * appears escaped there (a quote, a backslash, a newline in it), the parsed arguments are
 * redacted and written again.
 *
 * @example redactArguments('{"command":"echo s3cr3t"}', r) // '{"command":"echo [REDACTED:K]"}'
 */
export function redactArguments(text: string, redactor: Redactor): string {
  if (redactor.size === 0) return text;
  const redacted = redactor.redact(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(redacted);
  } catch {
    return redacted;
  }
  if (parsed === null || typeof parsed !== "object") return redacted;
  const deep = redactor.redactDeep(parsed);
  const again = JSON.stringify(deep);
  return again === JSON.stringify(parsed) ? redacted : again;
}

/** What a reply's row stores of the model's words. */
export interface ReplyWords<C extends ToolCall> {
  content: string | null;
  reasoning: string;
  reasoningBlocks: unknown[];
  toolCalls: C[];
}

/**
 * The reply as its row stores it: content, reasoning, reasoning blocks and arguments redacted.
 *
 * @example redactedReply({ content: "key s3cr3t", reasoning: "", reasoningBlocks: [], toolCalls: [], usage }, r).content // "key [REDACTED:K]"
 */
export function redactedReply<C extends ToolCall, R extends ReplyWords<C>>(reply: R, redactor: Redactor): R {
  if (redactor.size === 0) return reply;
  return {
    ...reply,
    content: reply.content === null ? null : redactor.redact(reply.content),
    reasoning: redactor.redact(reply.reasoning),
    reasoningBlocks: redactor.redactDeep(reply.reasoningBlocks),
    toolCalls: redactedToolCalls(reply.toolCalls, redactor),
  };
}

/**
 * The calls as the assistant row stores them: ids and names kept (the results refer to
 * them), arguments redacted. The calls still run with the model's own arguments.
 *
 * @example redactedToolCalls([{ id: "c1", type: "function", function: { name: "shell", arguments: '{"command":"echo s3cr3t"}' } }], r)
 * // [{ id: "c1", …, arguments: '{"command":"echo [REDACTED:K]"}' }]
 */
export function redactedToolCalls<T extends ToolCall>(calls: readonly T[], redactor: Redactor): T[] {
  return calls.map((call) => {
    const args = redactArguments(call.function.arguments, redactor);
    return args === call.function.arguments ? call : { ...call, function: { ...call.function, arguments: args } };
  });
}
