/**
 * What a task run does after one turn (TASK-013..021): the outcome it ends with, or that it
 * goes on. Pure: the task object's driver feeds it the turn's outcome (core/runs/turn.ts)
 * and what the task tools recorded.
 *
 * @example turnEnding({ turn: { next: "limit", code: "generation.max_steps", ... }, completed: null, question: null }) // { outcome: "limit_reached", ... }
 */
import type { TurnError, TurnOutcome } from "../runs/turn";
import type { TaskOutcome } from "./outcome";

export interface TurnFacts {
  /** What the turn ended with. */
  turn: TurnOutcome<TurnError>;
  /** complete_task's summary, when the agent called it this turn. */
  completed: string | null;
  /** ask_question's last question this turn, when it called it. */
  question: { question: string; blocking: boolean } | null;
}

export type TurnEnding =
  | { outcome: TaskOutcome; resetAt?: number | null; detail?: string }
  /** The context filled: this run ends and the task's next run starts from the hand-off text at once. */
  | { outcome: "handed_off"; handoff: string | null }
  /** No ending: deliver messages, or wait for one (blocking: the wait ends blocked, else end_turn). */
  | { outcome: null; blocking: boolean };

export function turnEnding(facts: TurnFacts): TurnEnding {
  const { turn } = facts;
  const codes = turn.errors.map((e) => e.code);
  if (codes.includes("generation.cancelled")) return { outcome: "cancelled" };
  const limited = turn.errors.find((e) => e.http_status === 429);
  if (limited) {
    const reset = limited.reset_at ? Date.parse(limited.reset_at) : Number.NaN;
    return { outcome: "rate_limited", resetAt: Number.isFinite(reset) ? reset : null };
  }
  if (facts.completed !== null) return { outcome: "completed", detail: facts.completed };
  if (turn.next === "handoff") return { outcome: "handed_off", handoff: turn.text };
  if (turn.next === "limit") return { outcome: "limit_reached", detail: turn.code };
  if (codes.includes("sandbox.lost") || codes.includes("sandbox.unavailable")) return { outcome: "sandbox_lost" };
  const failed = turn.errors[0];
  if (failed) return { outcome: "failed", detail: failed.code };
  return { outcome: null, blocking: facts.question?.blocking === true };
}
