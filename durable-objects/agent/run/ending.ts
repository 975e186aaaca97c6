import type { RunError } from "../../../core/db/transcript";
import { recordGenerationEnd } from "../generation/ending";
import type { RunContext } from "../state/context";
import type { RunSession } from "../state/run-session";

/**
 * Records errors that ended a generation outside the loop's own bookkeeping (a refused
 * start, a platform failure, recovery) with the status the run's kind gives, and
 * publishes them.
 */
export async function recordEnding(context: RunContext, session: RunSession, errors: RunError[]): Promise<"active" | "completed"> {
  const status = await recordGenerationEnd(context.database.db(), session, errors);
  for (const e of errors) context.hub.publish(session.runId, "error", { run_id: session.runId, ...e });
  return status;
}
