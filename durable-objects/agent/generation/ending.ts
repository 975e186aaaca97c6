import type { Database } from "../../../core/db/client";
import { riding } from "../../../core/db/outage";
import { type RunError, updateRun } from "../../../core/db/transcript";
import { statusAfterGeneration } from "../../../core/runs/rules";
import type { RunSession } from "../state/run-session";

/** How a generation leaves its run: the status its kind's rules give after `errors`, and metadata laid over the run's. */
export interface GenerationEnding {
  status: "active" | "completed";
  errors: RunError[];
  metadata?: Record<string, unknown>;
}

/**
 * The ending of a generation that ended with `errors`, not yet written.
 *
 * @example generationEnding(session, []) // { status: "completed", errors: [] } for a schedule run
 */
export function generationEnding(session: RunSession, errors: RunError[], metadata?: Record<string, unknown>): GenerationEnding {
  const status = statusAfterGeneration(
    session.facts,
    errors.map((e) => e.code),
  );
  return { status, errors, ...(metadata ? { metadata } : {}) };
}

/** The session follows an ending the database took; its status. */
export function endingWritten(session: RunSession, ending: GenerationEnding): "active" | "completed" {
  const { status, errors, metadata } = ending;
  session.facts = {
    ...session.facts,
    status,
    errors: [...session.facts.errors, ...errors],
    ...(metadata ? { metadata: { ...session.facts.metadata, ...metadata } } : {}),
  };
  return status;
}

/**
 * Writes how a generation ended, whichever harness ran it: the run's status after it as its
 * kind's rules say, its errors, and `metadata` laid over the run's; the session follows.
 */
export async function recordGenerationEnd(
  db: Database,
  session: RunSession,
  errors: RunError[],
  metadata?: Record<string, unknown>,
): Promise<"active" | "completed"> {
  const ending = generationEnding(session, errors, metadata);
  await riding(() => updateRun(db, session.runId, ending));
  return endingWritten(session, ending);
}
