/**
 * What a task run does after one turn (one generation, TASK-013..021): the outcome it ends
 * with, or that it goes on. Pure: the task object's driver feeds it the generation's errors
 * and what the task tools recorded.
 *
 * @example turnEnding({ errors: [{ code: "generation.max_steps" }], completed: null, question: null }) // { outcome: "limit_reached" }
 */
import type { TaskOutcome } from "./outcome";

export interface TurnFacts {
  /** The generation's run errors (code, and for a provider failure its HTTP status and reset time). */
  errors: ReadonlyArray<{ code: string; http_status?: number | null; reset_at?: string | null }>;
  /** complete_task's summary, when the agent called it this turn. */
  completed: string | null;
  /** ask_question's last question this turn, when it called it. */
  question: { question: string; blocking: boolean } | null;
}

export type TurnEnding =
  | { outcome: TaskOutcome; resetAt?: number | null; detail?: string }
  /** No ending: deliver messages, or wait for one (blocking: the wait ends blocked, else end_turn). */
  | { outcome: null; blocking: boolean };

/** Errors after which the run has used what it may: its tool calls, steps, input tokens, spend. */
const LIMIT_ERRORS = new Set(["generation.max_tool_calls", "generation.max_steps", "generation.max_input_tokens", "generation.max_chain", "usage.spend_limit"]);

export function turnEnding(facts: TurnFacts): TurnEnding {
  const codes = facts.errors.map((e) => e.code);
  if (codes.includes("generation.cancelled")) return { outcome: "cancelled" };
  const limited = facts.errors.find((e) => e.http_status === 429);
  if (limited) {
    const reset = limited.reset_at ? Date.parse(limited.reset_at) : Number.NaN;
    return { outcome: "rate_limited", resetAt: Number.isFinite(reset) ? reset : null };
  }
  if (facts.completed !== null) return { outcome: "completed", detail: facts.completed };
  const limit = codes.find((c) => LIMIT_ERRORS.has(c));
  if (limit) return { outcome: "limit_reached", detail: limit };
  if (codes.includes("sandbox.lost") || codes.includes("sandbox.unavailable")) return { outcome: "sandbox_lost" };
  const failed = facts.errors[0];
  if (failed) return { outcome: "failed", detail: failed.code };
  return { outcome: null, blocking: facts.question?.blocking === true };
}
