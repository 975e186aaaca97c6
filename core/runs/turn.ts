/**
 * What one turn of a run ends with (a generation: the model's steps and their tools), read
 * as what comes next for whoever drives the run: the chat loop, which waits for the next
 * message or opens the continuation, or a task run, which delivers queued messages, waits,
 * starts its next run from the hand-off, or ends. Pure: run/turn.ts feeds it the
 * generation's result.
 *
 * @example
 *   turnOutcome({ status: "active", errors: [] }, false) // { next: "step", status: "active" }
 *   turnOutcome({ status: "completed", errors: [], handoff: { text: "notes" } }, false) // { next: "handoff", text: "notes", ... }
 */

export interface TurnError {
  code: string;
  http_status?: number | null;
  reset_at?: string | null;
}

/** What the generation left: the run's status after it, its errors, and its hand-off when it made one. */
export interface TurnResult<E extends TurnError = TurnError> {
  status: "active" | "completed";
  errors: readonly E[];
  handoff?: { text: string | null };
}

export type TurnOutcome<E extends TurnError = TurnError> =
  /** The run goes on: its next message (or a task's queued one) opens the next turn. */
  | { next: "step"; status: "active"; errors: readonly E[] }
  /** The run is over: a one-shot run after its generation. */
  | { next: "end"; status: "completed"; errors: readonly E[] }
  /** The context filled (CHAIN-003): the run hands off to a continuation that starts from `text`. */
  | { next: "handoff"; status: "active" | "completed"; text: string | null; errors: readonly E[] }
  /** The run used what it may: tool calls, steps, input tokens, its chain, the spend limit. */
  | { next: "limit"; status: "active" | "completed"; code: string; errors: readonly E[] }
  /** A provider failure, a lost box, a cancel, a platform failure: `errors` says which. */
  | { next: "error"; status: "active" | "completed"; errors: readonly E[] };

/** Errors after which the run has used what it may. */
export const LIMIT_ERRORS: ReadonlySet<string> = new Set([
  "generation.max_tool_calls",
  "generation.max_steps",
  "generation.max_input_tokens",
  "generation.max_chain",
  "usage.spend_limit",
  // The task's own budget (issue 33): the run pauses, its work pushed, until the budget is raised.
  "task.budget",
  // A harness's own limits (Claude Code's turns per prompt, its context): TASK-028.
  "harness.max_turns",
  "harness.context_limit",
]);

/**
 * The outcome of a turn. A hand-off made by a generation that was cancelled meanwhile is not
 * followed (CHAIN-019): the run ends as its generation left it.
 */
export function turnOutcome<E extends TurnError>(result: TurnResult<E>, cancelled: boolean): TurnOutcome<E> {
  const { status, errors } = result;
  if (result.handoff && !cancelled) return { next: "handoff", status, text: result.handoff.text, errors };
  const limit = errors.find((e) => LIMIT_ERRORS.has(e.code));
  if (limit) return { next: "limit", status, code: limit.code, errors };
  if (errors.length) return { next: "error", status, errors };
  return status === "active" ? { next: "step", status, errors } : { next: "end", status, errors };
}
