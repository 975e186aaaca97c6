import { isTransient } from "../../../core/db/outage";
import { describeError, logEvent } from "../../../core/output/log";
import { interruptUnresolved } from "../generation/generation";
import { agentIdle, type RunContext, runEnded } from "../state/context";
import { type ActiveGeneration, HEARTBEAT, HEARTBEAT_MS } from "../state/generation-lock";
import type { RunSession } from "../state/run-session";
import { chainToPickUp } from "./chain";
import { recordEnding } from "./ending";

/** Heartbeats a recovery waits for the database (about 10 minutes) before it frees the agent anyway. */
const RECOVERY_OUTAGE_TRIES = 30;

/** Starts the loop of a run whose lock is held (the run lifecycle's `generate`). */
type Generate = (session: RunSession, claimed: ActiveGeneration) => void;

/**
 * Recovery of a generation the object lost: a lock left by an earlier instance of this
 * object (evicted, crashed or redeployed mid-generation), or whose lease ran out.
 * Unresolved tool calls get interruption results, the error is recorded, one-shot runs
 * complete, and the lock is released. The model call is never replayed (CANCEL-006/007).
 *
 * One recovery at a time: requests arriving meanwhile wait for it. A recovery that meets
 * a database outage keeps the lock (the agent stays busy) and comes back on the next
 * heartbeat, so the interruption results are written before anyone generates.
 */
export class RunRecovery {
  private running: Promise<void> | null = null;
  /** Recoveries in a row that met a database outage; past the cap the agent is freed anyway. */
  private outages = 0;

  constructor(
    private readonly context: RunContext,
    private readonly generate: Generate,
  ) {}

  /** Whether a recovery runs now (the object's connection stays open under it). */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Recovers an orphaned lock, if there is one. */
  run(): Promise<void> {
    this.running ??= this.recover().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async recover(): Promise<void> {
    const { context } = this;
    if (context.lock.active) return;
    const held = context.lock.stored.orphaned();
    if (!held) return;
    let agentId: string | undefined;
    try {
      const session = await context.sessions.get(held.runId);
      // A chain whose continuation was written but never generated goes on (CHAIN-010/012).
      if (session && (await this.pickUpContinuation(held.runId, session))) {
        this.outages = 0;
        return;
      }
      if (session) {
        await interruptUnresolved(context.database.db(), session, held.generation);
        // A retry after an outage may find the ending already recorded.
        const recorded = session.facts.errors.some((e) => e.code === "generation.interrupted" && (e as { generation?: number }).generation === held.generation);
        const status = recorded
          ? session.facts.status
          : await recordEnding(context, session, [
              {
                code: "generation.interrupted",
                message: "The generation was interrupted (the agent's object restarted); no model call was replayed",
                generation: held.generation,
                operation: "recovery",
                at: new Date(context.now()).toISOString(),
              },
            ]);
        context.hub.publish(session.runId, "status", { run_id: session.runId, status, generating: false });
        // An interrupted delivery completes and its cursor advances; dispatch resumes (GROUP-014).
        await runEnded(context, session);
        agentId = session.scope.agentId;
      }
    } catch (error) {
      logEvent("error", { operation: "recovery", run_id: held.runId, ...describeError(error) }, context.log);
      if (isTransient(error) && ++this.outages < RECOVERY_OUTAGE_TRIES) {
        await context.deadlines.set(HEARTBEAT, context.now() + HEARTBEAT_MS);
        return;
      }
    }
    this.outages = 0;
    // Done, or failed for good: free the agent; its next generation writes what is missing.
    await context.lock.release(held.runId);
    if (agentId) await agentIdle(context, agentId).catch(() => {});
  }

  /**
   * A lock whose chain has a continuation that never generated: the continuation takes the
   * lock over and generates (see chainToPickUp). False: recover as usual.
   */
  private async pickUpContinuation(heldRunId: string, session: RunSession): Promise<boolean> {
    const { context } = this;
    const next = await chainToPickUp(context.database.db(), session, (id) => context.sessions.get(id), new Date(context.now()));
    if (!next) return false;
    context.sessions.add(next);
    const claimed = await context.lock.pickUp(heldRunId, next.runId);
    if (!claimed.ok) return false;
    this.generate(next, claimed);
    return true;
  }
}
