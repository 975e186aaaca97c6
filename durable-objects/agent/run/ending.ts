import { riding } from "../../../core/db/outage";
import { type RunError, updateRun } from "../../../core/db/transcript";
import { statusAfterGeneration } from "../../../core/runs/rules";
import type { RunContext } from "../state/context";
import type { RunSession } from "../state/run-session";

/**
 * Records errors that ended a generation outside the loop's own bookkeeping (a refused
 * start, a platform failure, recovery) with the status the run's kind gives, and
 * publishes them.
 */
export async function recordEnding(context: RunContext, session: RunSession, errors: RunError[]): Promise<"active" | "completed"> {
  const status = statusAfterGeneration(
    session.facts,
    errors.map((e) => e.code),
  );
  await riding(() => updateRun(context.database.db(), session.runId, { status, errors }));
  session.facts = { ...session.facts, status, errors: [...session.facts.errors, ...errors] };
  for (const e of errors) context.hub.publish(session.runId, "error", { run_id: session.runId, ...e });
  return status;
}
