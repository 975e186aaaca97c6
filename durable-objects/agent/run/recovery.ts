import type { Database } from "../../../core/db/client";
import { isTransient } from "../../../core/db/outage";
import type { RunError } from "../../../core/db/transcript";
import { describeError, logEvent } from "../../../core/output/log";
import type { Redactor } from "../../../core/output/redaction";
import type { DeadlineMultiplexer } from "../../common/deadlines";
import { interruptUnresolved } from "../generation/generation";
import type { GenerationLock } from "../state/generation-lock";
import type { RunSession } from "../state/run-session";

/** Heartbeats a recovery waits for the database (about 10 minutes) before it frees the agent anyway. */
const RECOVERY_OUTAGE_TRIES = 30;

/** What recovery needs from the run lifecycle. */
export interface RecoveryHost {
  lock: GenerationLock;
  multiplexer: DeadlineMultiplexer;
  now: () => number;
  redactor: Redactor;
  /** The heartbeat deadline's name and period: a recovery that must wait comes back on it. */
  heartbeat: { name: string; everyMs: number };
  /** Whether this instance generates now (then nothing is orphaned). */
  generating(): boolean;
  db(): Database;
  session(runId: string): Promise<RunSession | null>;
  /** Records the errors that ended a generation, with the status the run's kind gives. */
  recordEnding(session: RunSession, errors: RunError[]): Promise<"active" | "completed">;
  publishStatus(runId: string, status: "active" | "completed"): void;
  runEnded(session: RunSession): Promise<void>;
  /** Generates a chain's continuation that never did, taking the lock over; false when there is none. */
  pickUpContinuation(heldRunId: string, session: RunSession): Promise<boolean>;
  idle(agentId: string): Promise<void>;
}

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

  constructor(private readonly host: RecoveryHost) {}

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
    const { host } = this;
    if (host.generating()) return;
    const held = host.lock.orphaned();
    if (!held) return;
    let agentId: string | undefined;
    try {
      const session = await host.session(held.runId);
      // A chain whose continuation was written but never generated goes on (CHAIN-010/012).
      if (session && (await host.pickUpContinuation(held.runId, session))) {
        this.outages = 0;
        return;
      }
      if (session) {
        await interruptUnresolved(host.db(), session, held.generation);
        // A retry after an outage may find the ending already recorded.
        const recorded = session.facts.errors.some((e) => e.code === "generation.interrupted" && (e as { generation?: number }).generation === held.generation);
        const status = recorded
          ? session.facts.status
          : await host.recordEnding(session, [
              {
                code: "generation.interrupted",
                message: "The generation was interrupted (the agent's object restarted); no model call was replayed",
                generation: held.generation,
                operation: "recovery",
                at: new Date(host.now()).toISOString(),
              },
            ]);
        host.publishStatus(session.runId, status);
        // An interrupted delivery completes and its cursor advances; dispatch resumes (GROUP-014).
        await host.runEnded(session);
        agentId = session.scope.agentId;
      }
    } catch (error) {
      logEvent("error", { operation: "recovery", run_id: held.runId, ...describeError(error) }, host.redactor);
      if (isTransient(error) && ++this.outages < RECOVERY_OUTAGE_TRIES) {
        await host.multiplexer.set(host.heartbeat.name, host.now() + host.heartbeat.everyMs);
        return;
      }
    }
    this.outages = 0;
    // Done, or failed for good: free the agent; its next generation writes what is missing.
    host.lock.release(held.runId);
    await host.multiplexer.clear(host.heartbeat.name);
    if (agentId) await host.idle(agentId).catch(() => {});
  }
}
