/**
 * What a run accepts, by the spec's rules on kinds, completion, resume and limits.
 * Pure: the Worker and the agent object ask these before touching anything.
 */
export type RunKind = "direct" | "group" | "schedule" | "task";

export interface RunFacts {
  kind: RunKind;
  status: "active" | "completed";
  archivedAt: Date | string | null;
  metadata: { resumed_at?: string; continued_by_run_id?: string; [k: string]: unknown };
  errors: Array<{ code: string }>;
}

export interface Refusal {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Errors after which a run is over for good: no message, no resume (GEN-018, GEN-020, CHAIN-021). */
export const FINAL_ERRORS = ["generation.max_tool_calls", "generation.max_input_tokens", "generation.max_chain"] as const;

export const finalError = (run: Pick<RunFacts, "errors">) => run.errors.find((e) => (FINAL_ERRORS as readonly string[]).includes(e.code))?.code;

/**
 * Why a user message is refused, or null when the run accepts it.
 *
 * @example messageRefusal({ kind: "schedule", status: "completed", ... }) // run.not_accepting_messages
 */
export function messageRefusal(run: RunFacts): Refusal | null {
  if (run.kind === "task") return taskRunRefusal(run);
  if (run.metadata.continued_by_run_id) {
    return { code: "run.continued", message: "This run continued in a newer run; write there", details: { latest_run_id: run.metadata.continued_by_run_id } };
  }
  if (run.archivedAt) return { code: "run.not_accepting_messages", message: "The run is archived", details: { status: run.status, kind: run.kind } };
  const final = finalError(run);
  if (final)
    return {
      code: "run.not_accepting_messages",
      message: `The run ended with ${final}; start a new run`,
      details: { status: run.status, kind: run.kind, reason: final },
    };
  if (run.status === "completed") {
    return { code: "run.not_accepting_messages", message: "The run is completed; resume it first", details: { status: run.status, kind: run.kind } };
  }
  if (run.kind !== "direct" && !run.metadata.resumed_at) {
    return {
      code: "run.not_accepting_messages",
      message: `A ${run.kind} run accepts messages only after the operator resumes it`,
      details: { status: run.status, kind: run.kind },
    };
  }
  return null;
}

/** Why `POST /api/runs/:id/resume` is refused, or null (CANCEL-012). */
export function resumeRefusal(run: RunFacts): Refusal | null {
  if (run.kind === "task") return taskRunRefusal(run);
  if (run.metadata.continued_by_run_id) {
    return { code: "run.continued", message: "This run continued in a newer run", details: { latest_run_id: run.metadata.continued_by_run_id } };
  }
  if (run.archivedAt) return { code: "run.not_resumable", message: "An archived run cannot be resumed", details: { reason: "archived" } };
  const final = finalError(run);
  if (final) return { code: "run.not_resumable", message: `The run ended with ${final}; start a new run`, details: { reason: final } };
  if (run.status !== "completed") return { code: "run.not_resumable", message: "Only a completed run can be resumed", details: { reason: "not_completed" } };
  return null;
}

/** A task run is driven by its task's object: messages go to the task, never to the run (TASK-019). */
function taskRunRefusal(run: RunFacts): Refusal {
  return {
    code: "run.not_accepting_messages",
    message: "A task run takes messages through its task",
    details: { status: run.status, kind: run.kind, ...(typeof run.metadata.task_id === "string" ? { task_id: run.metadata.task_id } : {}) },
  };
}

/** The status a run takes when a generation ends (GEN-012, GEN-017, GEN-020). */
export function statusAfterGeneration(run: Pick<RunFacts, "kind" | "metadata">, errorCodes: string[]): "active" | "completed" {
  if (errorCodes.some((c) => (FINAL_ERRORS as readonly string[]).includes(c))) return "completed";
  // A task run stays active across its turns; its task object completes it when the run ends.
  if (run.kind === "direct" || run.kind === "task" || run.metadata.resumed_at) return "active";
  return "completed";
}

/** History's label for a run (RUN-009, OP-RUN-5). */
export function runLabel(kind: RunKind, title: string | null): string {
  if (kind === "schedule") return "Schedule wake-up";
  if (kind === "group") return "Group chat";
  return title || "New chat";
}
