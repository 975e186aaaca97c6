import { type Outcome, type Refused, refuse } from "../../../bindings/outcome";
import { type OpeningState, readOpeningState } from "../../../core/db/agent-state";
import type { Database } from "../../../core/db/client";
import { isTransient, type OutagePolicy, riding } from "../../../core/db/outage";
import { type RunError, updateRun } from "../../../core/db/transcript";
import { describeError, logEvent } from "../../../core/output/log";
import { type Refusal, resumeRefusal, statusAfterGeneration } from "../../../core/runs/rules";
import { tokenCounterReady } from "../generation/token-ranks";
import { agentIdle, type RunContext, runEnded } from "../state/context";
import type { ActiveGeneration } from "../state/generation-lock";
import type { RunSession } from "../state/run-session";
import { announceContinuation, continueAfterHandoff, withLatestRun } from "./chain";
import { recordEnding } from "./ending";
import { AgentUnavailable, type Opening, searchOffered, writeOpening } from "./opening";
import { RunRecovery } from "./recovery";
import { runTurn } from "./turn";

/** How long a request waits out a database outage before it answers 503. */
export const REQUEST_OUTAGE_POLICY = { budgetMs: 3_000, firstPauseMs: 200, maxPauseMs: 1_000 };

/**
 * The run lifecycle: a run whose opening is written generates in the object's background,
 * ends (or hands off to its continuation, CHAIN-010) and frees the agent; cancel stops it;
 * a generation the object lost is recovered first. The triggers open runs (the operator's
 * direct chat, schedule wake-ups, group deliveries) and hear of their end as RunListeners.
 *
 * @example
 *   const outcome = await runs.open(agentId, new Date(), (db, agent) => plan(db, agent));
 */
export class RunLifecycle {
  readonly recovery: RunRecovery;

  constructor(private readonly context: RunContext) {
    this.recovery = new RunRecovery(context, (session, claimed) => this.generate(session, claimed));
  }

  /**
   * Opens a one-shot run for a trigger: the lock is taken first, then the opening is
   * planned, then written in one transaction (guarded by its `claim`); then it generates.
   * "skipped" when the plan has nothing to open or its claim lost. Options:
   * - `known`: the opening state the trigger read beside its own rows before the claim (when
   *   `lock.claims` was `claims`); used when no other generation came between, read afresh
   *   otherwise.
   * - `claimed`: runs in the turn the lock is taken, before any outside I/O, so its storage
   *   writes reach the disk with the lock's.
   */
  async open(
    agentId: string,
    now: Date,
    plan: (db: Database, agent: OpeningState["agent"]) => Promise<Opening | null>,
    options: { known?: { state: OpeningState; claims: number }; claimed?: () => Promise<void> } = {},
  ): Promise<"started" | "busy" | "skipped"> {
    const { lock, sessions } = this.context;
    const { known } = options;
    const runId = crypto.randomUUID();
    const claimed = await lock.claim(runId, 1);
    if (!claimed.ok) return "busy";
    const fresh = known && lock.claims === known.claims + 1 ? known.state : undefined;
    try {
      await options.claimed?.();
      await tokenCounterReady(this.context.env);
      const db = this.context.database.db();
      const state = fresh ?? (await readOpeningState(db, agentId, now));
      if (!state || state.agent.archivedAt) throw new AgentUnavailable();
      const opening = await plan(db, state.agent);
      const session = opening ? (await writeOpening(db, state, runId, now, { ...opening, search: searchOffered(this.context.env) }))?.session : null;
      if (!session) {
        await lock.release(runId);
        return "skipped";
      }
      // The session is what was just written: the loop starts without reading it back.
      sessions.add(session);
      await opening!.opened?.(runId);
    } catch (error) {
      await lock.release(runId);
      throw error;
    }
    await this.generateWritten(runId, claimed);
    return "started";
  }

  /**
   * Starts the loop of a run whose opening is committed. When the run cannot be loaded
   * (the database stayed away, or the agent was deleted meanwhile) the claim is released
   * and the run stays as written: its next message generates, writing what is missing first.
   */
  async generateWritten(runId: string, claimed: ActiveGeneration, policy?: OutagePolicy): Promise<void> {
    const session = await riding(() => this.context.sessions.get(runId), policy).catch((error: unknown) => {
      logEvent("error", { operation: "run.open", run_id: runId, ...describeError(error) }, this.context.log);
      return null;
    });
    if (session) this.generate(session, claimed);
    else await this.context.lock.release(runId);
  }

  /** Runs the loop in the object's background; the lock is held and the opening row committed. */
  generate(session: RunSession, active: ActiveGeneration): void {
    this.context.waitUntil(this.loop(session, active));
  }

  /** `POST /api/runs/:id/cancel` (CANCEL-001..003): stops the model call or the tool in flight. */
  async cancel(runId: string): Promise<Outcome<{ cancelled: true }>> {
    await this.recovery.run();
    const active = this.context.lock.active;
    if (!active || active.runId !== runId) return refuse(409, "run.not_generating", "The run is not generating");
    active.controller.abort();
    await active.done;
    return { ok: true, cancelled: true };
  }

  /** `POST /api/runs/:id/resume` (CANCEL-012/013). */
  resume(runId: string): Promise<Outcome<{ resumed_at: string }>> {
    return this.context.database.use(async (db) => {
      const session = await this.context.sessions.get(runId);
      if (!session) return refuse(404, "run.not_found", "No such run");
      const refusal = resumeRefusal(session.facts);
      if (refusal) return refused(await withLatestRun(db, runId, refusal));
      const resumedAt = new Date(this.context.now()).toISOString();
      await updateRun(db, runId, { status: "active", metadata: { resumed_at: resumedAt } });
      session.facts = { ...session.facts, status: "active", metadata: { ...session.facts.metadata, resumed_at: resumedAt } };
      this.context.hub.publish(runId, "status", { run_id: runId, status: "active", generating: false });
      return { ok: true, resumed_at: resumedAt };
    });
  }

  /**
   * `POST /api/runs/:id/archive|unarchive` (RUN-024, OP-RUN-4): sets or clears archived_at.
   * An archived run refuses messages and resume; refused while the run generates.
   */
  archive(runId: string, archived: boolean): Promise<Outcome<{ archived_at: string | null }>> {
    return this.context.database.use(async (db) => {
      const session = await this.context.sessions.get(runId);
      if (!session) return refuse(404, "run.not_found", "No such run");
      if (this.context.lock.held()?.runId === runId) {
        return refuse(409, "run.generating", "The run is generating; cancel it or wait for it to finish", { run_id: runId });
      }
      const current = session.facts.archivedAt;
      if (Boolean(current) === archived) return { ok: true, archived_at: current ? new Date(current).toISOString() : null };
      const archivedAt = archived ? new Date(this.context.now()) : null;
      // Set in memory in the same turn as the lock check, so a message arriving while the row
      // is written is refused rather than started on a run about to be archived.
      session.facts = { ...session.facts, archivedAt };
      try {
        await updateRun(db, runId, { archivedAt });
      } catch (error) {
        session.facts = { ...session.facts, archivedAt: current };
        throw error;
      }
      return { ok: true, archived_at: archivedAt?.toISOString() ?? null };
    });
  }

  /** The heartbeat deadline: renews the lease while this instance generates, or recovers a lost one. */
  async heartbeat(): Promise<void> {
    if ((await this.context.lock.beat()) === "orphaned") await this.recovery.run();
  }

  private async loop(session: RunSession, active: ActiveGeneration): Promise<void> {
    const { context } = this;
    const { runId, generation } = active;
    const signal = active.controller.signal;
    context.hub.publish(runId, "status", { run_id: runId, status: "active", generating: true, generation });
    let status = session.facts.status;
    // The continuation this run handed off to, holding the lock it passed (CHAIN-010).
    let next: { session: RunSession; active: ActiveGeneration } | null = null;
    try {
      const turn = await runTurn(context, session, active);
      status = turn.status;
      if (turn.next === "handoff") next = await this.continueChain(session, turn.text);
      // A cancel that came while the continuation was written stops it before its first call (CHAIN-019).
      if (next && signal.aborted) next.active.controller.abort();
    } catch (error) {
      status = await this.failed(session, generation, error);
    } finally {
      if (next) {
        // The lock went to the continuation: no run ended for the triggers, nothing is idle.
        if (session.stale) context.sessions.forget(session);
        context.hub.publish(runId, "status", { run_id: runId, status: "completed", generating: false, generation });
        announceContinuation(context.hub, session, next.session);
      } else await this.finish(session, status, generation);
    }
    if (next) await this.loop(next.session, next.active);
  }

  /**
   * The generation could not start, or its ending could not be written: the run ends this
   * generation by its kind's rules as far as the database lets us, and the next generation
   * repairs what is left (interruption results before its first row).
   */
  private async failed(session: RunSession, generation: number, error: unknown): Promise<"active" | "completed"> {
    const { context } = this;
    const { agentId, guildId } = session.scope;
    logEvent("error", { operation: "generation", run_id: session.runId, agent_id: agentId, guild_id: guildId, ...describeError(error) }, context.log);
    const failed: RunError = {
      code: "generation.failed",
      message: "The generation failed on the platform side",
      generation,
      operation: "generation",
      at: new Date(context.now()).toISOString(),
    };
    return recordEnding(context, session, [failed]).catch(() => {
      context.sessions.forget(session);
      return statusAfterGeneration(session.facts, [failed.code]);
    });
  }

  /** A generation's end that frees the agent: the triggers hear of it, then the lock goes. */
  private async finish(session: RunSession, status: "active" | "completed", generation: number): Promise<void> {
    const { context } = this;
    const { runId } = session;
    // A delivery's cursor advances before the lock is free, so no other generation sees it behind.
    await runEnded(context, session).catch((error) => logEvent("error", { operation: "run.ended", run_id: runId, ...describeError(error) }));
    if (session.stale) context.sessions.forget(session);
    await context.lock.release(runId);
    context.hub.publish(runId, "status", { run_id: runId, status, generating: false, generation });
    await agentIdle(context, session.scope.agentId).catch(() => {});
  }

  /** After a hand-off the continuation is written, then the lock passes to it without being released (CHAIN-010). */
  private async continueChain(session: RunSession, handoff: string | null): Promise<{ session: RunSession; active: ActiveGeneration } | null> {
    const { context } = this;
    const opened = await continueAfterHandoff(context.database.db(), session, handoff, new Date(context.now()), context.log);
    if (!opened) return null;
    context.sessions.add(opened);
    return { session: opened, active: context.lock.handOver(session.runId, opened.runId) };
  }
}

/** A refusal as the API answers it: 409 with its code and details. */
export function refused(refusal: Refusal): Refused {
  return refuse(409, refusal.code, refusal.message, refusal.details);
}

/** A request that met a database outage answers 503; anything else is a bug and goes up. */
export function unavailable(error: unknown): Refused {
  if (isTransient(error)) return refuse(503, "database.unavailable", "The database cannot be reached right now; try again shortly");
  throw error;
}
