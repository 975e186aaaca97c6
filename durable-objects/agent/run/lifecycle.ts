import type { Env } from "../../../bindings/env";
import { busy, type Outcome, type Refused, refuse } from "../../../bindings/outcome";
import { generationStateColumns, generationStateOf, type OpeningState, readOpeningState } from "../../../core/db/agent-state";
import type { Database } from "../../../core/db/client";
import { isTransient, type OutagePolicy, riding } from "../../../core/db/outage";
import { appendOpeningRow, loadRows, type RunError, toWireRow, updateRun } from "../../../core/db/transcript";
import { describeError, logEvent } from "../../../core/output/log";
import { platformRedactor } from "../../../core/output/redaction";
import { countRowTokens } from "../../../core/projection/token-count";
import type { AttachmentRef, ChatPayload } from "../../../core/projection/types";
import { messageRefusal, type Refusal, type RunKind, resumeRefusal, statusAfterGeneration } from "../../../core/runs/rules";
import { toRun } from "../../../core/runs/wire";
import type { DeadlineMultiplexer } from "../../common/deadlines";
import { IdleConnection } from "../../common/idle-connection";
import { hubLimits, SseHub } from "../../common/sse-hub";
import type { EnsureRequest } from "../../sandbox/inputs";
import type { GenerationSandbox } from "../../sandbox/manager";
import { interruptUnresolved, runGeneration } from "../generation/generation";
import { generationInputs } from "../generation/inputs";
import { tokenCounterReady } from "../generation/token-ranks";
import type { GenerationLock } from "../state/generation-lock";
import type { RedactionMemory } from "../state/redaction-memory";
import type { RunSession } from "../state/run-session";
import { SessionCache } from "../state/session-cache";
import { announceContinuation, chainToPickUp, continueAfterHandoff, withLatestRun } from "./chain";
import { AgentUnavailable, type Opening, writeOpening } from "./opening";
import { RunRecovery } from "./recovery";

/** A created run: its id, and the run as the API shows it (JSON: RPC types cannot carry its free-form metadata). */
export type CreatedRun = { run_id: string; run: string };

/** The lease a generation holds; the heartbeat renews it well before it runs out. */
export const LEASE_MS = 60_000;
export const HEARTBEAT_MS = 20_000;
export const HEARTBEAT = "generation.heartbeat";
/** An idle object closes its database connection after this long. */
const IDLE_CLOSE_MS = 5_000;
/** How long a request waits out a database outage before it answers 503. */
const REQUEST_OUTAGE_POLICY = { budgetMs: 3_000, firstPauseMs: 200, maxPauseMs: 1_000 };

/** What the triggers of runs (schedules, group deliveries) hear from the run lifecycle. */
export interface RunHooks {
  /** A generation ended and its run's status is settled; runs before the lock is released. */
  runEnded(session: RunSession): Promise<void>;
  /** The agent is free again: a waiting trigger may go now. */
  idle(agentId: string): Promise<void>;
  /** A schedule tool changed the agent's routines. */
  schedulesChanged(agentId: string): Promise<void>;
  /** Ensures the agent's box at a generation's start, for runs that offer a sandbox tool. */
  sandboxAtStart(request: EnsureRequest, db: Database): Promise<GenerationSandbox>;
  /** secret_store changed a secret of the agent's: its idle box goes (after the generation). */
  secretsChanged(): Promise<unknown>;
  /** Whether the agent's box runs now (a script-only run then materialises at its start). */
  boxRunning(): boolean;
}

interface Host {
  ctx: DurableObjectState;
  env: Env;
  lock: GenerationLock;
  multiplexer: DeadlineMultiplexer;
  /** Values of earlier generations' redaction sets (a run's secrets, valid tokens). */
  redaction: RedactionMemory;
  now: () => number;
  hooks: RunHooks;
  /** Randomness of the wake-window planner. */
  random: () => number;
}

/** The generation this object instance holds the lock for, from the moment it took it. */
interface ActiveGeneration {
  runId: string;
  generation: number;
  controller: AbortController;
  /** Settles when the lock is released. */
  done: Promise<void>;
  finish: () => void;
}

export interface NewMessage {
  content: string;
  attachments?: AttachmentRef[];
}

/**
 * The run lifecycle as the agent object drives it: opening runs, user messages under the
 * generation lock, the background loop, cancellation, resume, SSE, and recovery of a
 * generation the object lost. The triggers (schedule firing, group delivery) open their
 * runs through `openOneShot` and hear of their end through `RunHooks`.
 *
 * The lock and `active` change together, synchronously: a request that finds the lock
 * held by this instance is busy, whatever the holder is awaiting.
 */
export class RunService {
  /** Run event streams; replays read pages through one shared connection, never one per subscriber. */
  readonly hub: SseHub;
  /** The runs held in memory between generations. */
  readonly sessions: SessionCache;
  private active: ActiveGeneration | null = null;
  private readonly recovery: RunRecovery;
  /**
   * The object's one connection: kept open while a generation holds the lock (which
   * includes planning a delivery and waiting for the group-history selector), while
   * recovery runs and while a session loads.
   */
  private readonly connection: IdleConnection;

  constructor(private readonly host: Host) {
    this.connection = new IdleConnection(host.env, IDLE_CLOSE_MS, () => Boolean(this.active || this.recovery.busy || this.sessions.busy));
    this.hub = new SseHub(
      (runId, after, limit) => this.connection.use(async (db) => (await loadRows(db, runId, after, limit)).map(toWireRow)),
      hubLimits(host.env.MAX_RUN_SUBSCRIBERS, host.env.SSE_QUEUE_BYTES, 200),
    );
    this.sessions = new SessionCache(
      () => this.db(),
      (session) => {
        session.publishRow = (row) => this.hub.publishRow(session.runId, row);
      },
      () => this.active?.runId,
    );
    this.recovery = new RunRecovery({
      lock: host.lock,
      multiplexer: host.multiplexer,
      now: host.now,
      redactor: platformRedactor(host.env),
      heartbeat: { name: HEARTBEAT, everyMs: HEARTBEAT_MS },
      generating: () => this.active !== null,
      db: () => this.db(),
      session: (runId) => this.session(runId),
      recordEnding: (session, errors) => this.recordEnding(session, errors),
      publishStatus: (runId, status) => this.hub.publish(runId, "status", { run_id: runId, status, generating: false }),
      runEnded: (session) => this.host.hooks.runEnded(session),
      pickUpContinuation: (heldRunId, session) => this.pickUpContinuation(heldRunId, session),
      idle: (agentId) => this.host.hooks.idle(agentId),
    });
  }

  /** The generation this instance holds the lock for, if any. */
  get current(): ActiveGeneration | null {
    return this.active;
  }

  /**
   * `POST /api/agents/:id/runs`: row 0, and with a message row 1 and a generation
   * (RUN-003/004). With a message the lock is taken before anything is written, so a
   * request that loses the race leaves no run behind.
   */
  createRun(agentId: string, input: { kind: RunKind; message?: NewMessage; title?: string | null }): Promise<Outcome<CreatedRun>> {
    return this.holding(() => this.createRunHeld(agentId, input));
  }

  private async createRunHeld(agentId: string, input: { kind: RunKind; message?: NewMessage; title?: string | null }): Promise<Outcome<CreatedRun>> {
    await this.recoverOrphan();
    await tokenCounterReady(this.host.env);
    const runId = crypto.randomUUID();
    let run: string;
    const claimed = input.message ? await this.claim(runId, 1) : null;
    if (claimed && !claimed.ok) return claimed;
    try {
      const db = this.db();
      const now = new Date(this.host.now());
      const state = await readOpeningState(db, agentId, now);
      const refused = !state
        ? refuse(404, "agent.not_found", "No such agent")
        : state.agent.archivedAt
          ? refuse(409, "agent.archived", "The agent is archived")
          : null;
      if (refused) {
        if (claimed) await this.release(runId);
        return refused;
      }
      const { message } = input;
      const title = input.title ?? (message ? message.content.slice(0, 80) || null : null);
      const opened = await writeOpening(db, state!, runId, now, {
        kind: input.kind,
        run: { title, metadata: {} },
        ...(message ? { wake: { role: "user", content: message.content }, wakeMetadata: userMetadata(message, "operator") } : {}),
      });
      if (!opened) throw new Error("the opening of a run without a claim wrote nothing");
      this.sessions.add(opened.session);
      // The API answers with the run as written, so the Worker need not read it back.
      run = JSON.stringify(toRun(opened.run, "0", { withSnapshot: true }));
    } catch (error) {
      if (claimed) await this.release(runId);
      return unavailable(error);
    }
    // Written: from here a failure must not answer as if the run did not exist.
    if (claimed) await this.generateWritten(runId, claimed, REQUEST_OUTAGE_POLICY);
    return { ok: true, run_id: runId, run };
  }

  /** `POST /api/runs/:id/messages`: 409 while the agent generates (GEN-003); refusals per RUN-006/GEN-018. */
  postMessage(runId: string, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    return this.holding(() => this.postMessageHeld(runId, message));
  }

  private async postMessageHeld(runId: string, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    await this.recoverOrphan();
    const held = this.host.lock.current();
    if (held) return busy(held.runId);
    let session: RunSession | null;
    try {
      session = await this.session(runId);
    } catch (error) {
      return unavailable(error);
    }
    if (!session) return refuse(404, "run.not_found", "No such run");
    const refusal = messageRefusal(session.facts);
    if (refusal) return refused(await withLatestRun(this.db(), runId, refusal));
    return this.startGeneration(session, message);
  }

  /** `POST /api/runs/:id/cancel` (CANCEL-001..003): stops the model call or the tool in flight. */
  async cancel(runId: string): Promise<Outcome<{ cancelled: true }>> {
    await this.recoverOrphan();
    const active = this.active;
    if (!active || active.runId !== runId) return refuse(409, "run.not_generating", "The run is not generating");
    active.controller.abort();
    await active.done;
    return { ok: true, cancelled: true };
  }

  /** `POST /api/runs/:id/resume` (CANCEL-012/013). */
  resume(runId: string): Promise<Outcome<{ resumed_at: string }>> {
    return this.holding(() => this.resumeHeld(runId));
  }

  private async resumeHeld(runId: string): Promise<Outcome<{ resumed_at: string }>> {
    const session = await this.session(runId);
    if (!session) return refuse(404, "run.not_found", "No such run");
    const refusal = resumeRefusal(session.facts);
    if (refusal) return refused(await withLatestRun(this.db(), runId, refusal));
    const resumedAt = new Date(this.host.now()).toISOString();
    await updateRun(this.db(), runId, { status: "active", metadata: { resumed_at: resumedAt } });
    session.facts = { ...session.facts, status: "active", metadata: { ...session.facts.metadata, resumed_at: resumedAt } };
    this.hub.publish(runId, "status", { run_id: runId, status: "active", generating: false });
    return { ok: true, resumed_at: resumedAt };
  }

  /**
   * `POST /api/runs/:id/archive|unarchive` (RUN-024, OP-RUN-4): sets or clears archived_at.
   * An archived run refuses messages and resume; refused while the run generates.
   */
  archive(runId: string, archived: boolean): Promise<Outcome<{ archived_at: string | null }>> {
    return this.holding(() => this.archiveHeld(runId, archived));
  }

  private async archiveHeld(runId: string, archived: boolean): Promise<Outcome<{ archived_at: string | null }>> {
    const session = await this.session(runId);
    if (!session) return refuse(404, "run.not_found", "No such run");
    if (this.host.lock.current()?.runId === runId) {
      return refuse(409, "run.generating", "The run is generating; cancel it or wait for it to finish", { run_id: runId });
    }
    const current = session.facts.archivedAt;
    if (Boolean(current) === archived) return { ok: true, archived_at: current ? new Date(current).toISOString() : null };
    const archivedAt = archived ? new Date(this.host.now()) : null;
    // Set in memory in the same turn as the lock check, so a message arriving while the row
    // is written is refused rather than started on a run about to be archived.
    session.facts = { ...session.facts, archivedAt };
    try {
      await updateRun(this.db(), runId, { archivedAt });
    } catch (error) {
      session.facts = { ...session.facts, archivedAt: current };
      throw error;
    }
    return { ok: true, archived_at: archivedAt?.toISOString() ?? null };
  }

  /** The heartbeat deadline: renew the lease while this instance generates, or recover a lost one. */
  async heartbeat(): Promise<void> {
    const held = this.host.lock.current();
    if (!held) return;
    if (this.active?.runId === held.runId) {
      this.host.lock.renew(held.runId, LEASE_MS);
      await this.host.multiplexer.set(HEARTBEAT, this.host.now() + HEARTBEAT_MS);
      return;
    }
    await this.recoverOrphan();
  }

  /** Recovers a generation the object lost, if any (see RunRecovery); requests wait for it. */
  recoverOrphan(): Promise<void> {
    return this.recovery.run();
  }

  /**
   * Opens a one-shot run for a trigger: the lock is taken first, then the opening is
   * planned, then written in one transaction (guarded by its `claim`); then it generates.
   * "skipped" when the plan has nothing to open or its claim lost.
   */
  async openOneShot(
    agentId: string,
    now: Date,
    plan: (db: Database, agent: OpeningState["agent"]) => Promise<Opening | null>,
  ): Promise<"started" | "busy" | "skipped"> {
    const runId = crypto.randomUUID();
    const claimed = await this.claim(runId, 1);
    if (!claimed.ok) return "busy";
    await tokenCounterReady(this.host.env);
    try {
      const db = this.db();
      const state = await readOpeningState(db, agentId, now);
      if (!state || state.agent.archivedAt) throw new AgentUnavailable();
      const opening = await plan(db, state.agent);
      const session = opening ? (await writeOpening(db, state, runId, now, opening))?.session : null;
      if (!session) {
        await this.release(runId);
        return "skipped";
      }
      // The session is what was just written: the loop starts without reading it back.
      this.sessions.add(session);
      await opening!.opened?.(runId);
    } catch (error) {
      await this.release(runId);
      throw error;
    }
    await this.generateWritten(runId, claimed);
    return "started";
  }

  /**
   * Takes the lock for a generation and marks it active in the same tick, then arms
   * the heartbeat, so recovery finds the lock if this instance dies before it ends.
   */
  private async claim(runId: string, generation: number): Promise<(ActiveGeneration & { ok: true }) | Refused> {
    const acquired = this.host.lock.acquire(runId, generation, LEASE_MS);
    if (!acquired.ok) return busy(acquired.busyRunId);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const active = { runId, generation, controller: new AbortController(), done, finish };
    this.active = active;
    try {
      await this.host.multiplexer.set(HEARTBEAT, this.host.now() + HEARTBEAT_MS);
    } catch (error) {
      await this.release(runId);
      throw error;
    }
    return { ok: true, ...active };
  }

  /** Frees the lock `runId` holds and forgets its generation. */
  private async release(runId: string): Promise<void> {
    this.host.lock.release(runId);
    const active = this.active;
    if (active?.runId === runId) {
      this.active = null;
      active.finish();
    }
    await this.host.multiplexer.clear(HEARTBEAT);
  }

  /**
   * A user message opens generation N+1: tool calls a failed generation left open get
   * their interruption results first, then the message and the run's generation number
   * commit in one statement.
   */
  private async startGeneration(session: RunSession, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    await tokenCounterReady(this.host.env);
    const generation = session.facts.generation + 1;
    const claimed = await this.claim(session.runId, generation);
    if (!claimed.ok) return claimed;
    let seq: number;
    try {
      const db = this.db();
      await interruptUnresolved(db, session, session.facts.generation);
      const payload: ChatPayload = { role: "user", content: message.content };
      const metadata = userMetadata(message, "operator");
      // The generation's start reads (secrets, spend) ride along with the row's statement.
      const alongside = {
        columns: generationStateColumns(session.scope, new Date(this.host.now())),
        take: (values: Record<string, unknown>) => {
          session.openedWith = generationStateOf(values);
        },
      };
      const row = await session.commit(
        db,
        { generation, role: "user", payload: payload as never, metadata, tokenCount: countRowTokens(payload, metadata) },
        (tx, draft) => appendOpeningRow(tx, { ...draft, generation }, alongside),
        REQUEST_OUTAGE_POLICY,
      );
      session.facts = { ...session.facts, generation };
      seq = row.seq;
    } catch (error) {
      this.forget(session);
      await this.release(session.runId);
      return unavailable(error);
    }
    this.beginLoop(session, claimed);
    return { ok: true, seq, generation };
  }

  /**
   * Starts the loop of a run whose opening is committed. When the run cannot be loaded
   * (the database stayed away, or the agent was deleted meanwhile) the claim is released
   * and the run stays as written: its next message generates, writing what is missing first.
   */
  private async generateWritten(runId: string, claimed: ActiveGeneration, policy?: OutagePolicy): Promise<void> {
    const session = await riding(() => this.session(runId), policy).catch((error: unknown) => {
      logEvent("error", { operation: "run.open", run_id: runId, ...describeError(error) }, platformRedactor(this.host.env));
      return null;
    });
    if (session) this.beginLoop(session, claimed);
    else await this.release(runId);
  }

  /** Runs the loop in the object's background; the lock is held and the opening row committed. */
  private beginLoop(session: RunSession, active: ActiveGeneration): void {
    this.host.ctx.waitUntil(this.loop(session, active));
  }

  private async loop(session: RunSession, active: ActiveGeneration): Promise<void> {
    const { env } = this.host;
    const { runId, generation } = active;
    const signal = active.controller.signal;
    this.hub.publish(runId, "status", { run_id: runId, status: "active", generating: true, generation });
    let status = session.facts.status;
    // The continuation this run handed off to, holding the lock it passed (CHAIN-010).
    let next: { session: RunSession; active: ActiveGeneration } | null = null;
    try {
      const inputs = await generationInputs({
        db: this.db(),
        env,
        session,
        generation,
        signal,
        now: this.host.now,
        random: this.host.random,
        schedulesChanged: () => this.host.hooks.schedulesChanged(session.scope.agentId),
        publish: (event, data) => this.hub.publish(runId, event, data),
        sandbox: (request) => this.host.hooks.sandboxAtStart(request, this.db()),
        secretsChanged: () => this.host.hooks.secretsChanged(),
        scriptsForgotten: (change) => this.sessions.forgetScripts(change),
        boxRunning: () => this.host.hooks.boxRunning(),
        kept: this.host.redaction,
      });
      if (!inputs.ok) {
        status = await this.recordEnding(session, [inputs.error]);
        return;
      }
      const outcome = await runGeneration(inputs.deps);
      status = outcome.status;
      // REPO-015: every generation ends with a checkpoint, a cancelled one too.
      await inputs.deps.repositories
        ?.checkpointEnd()
        .catch((error: unknown) => logEvent("warn", { operation: "repository.checkpoint_end", run_id: runId, ...describeError(error) }, inputs.deps.redactor));
      for (const e of outcome.errors) this.hub.publish(runId, "error", { run_id: runId, ...e });
      if (outcome.handoff && !signal.aborted) next = await this.continueChain(session, outcome.handoff.text);
      // A cancel that came while the continuation was written stops it before its first call (CHAIN-019).
      if (next && signal.aborted) next.active.controller.abort();
    } catch (error) {
      // The generation could not start, or its ending could not be written: the run ends
      // this generation by its kind's rules as far as the database lets us, and the next
      // generation repairs what is left (interruption results before its first row).
      logEvent(
        "error",
        { operation: "generation", run_id: runId, agent_id: session.scope.agentId, guild_id: session.scope.guildId, ...describeError(error) },
        platformRedactor(env),
      );
      const failed: RunError = {
        code: "generation.failed",
        message: "The generation failed on the platform side",
        generation,
        operation: "generation",
        at: new Date(this.host.now()).toISOString(),
      };
      status = await this.recordEnding(session, [failed]).catch(() => {
        this.forget(session);
        return statusAfterGeneration(session.facts, [failed.code]);
      });
    } finally {
      if (next) {
        // The lock went to the continuation: no run ended for the triggers, nothing is idle.
        if (session.stale) this.forget(session);
        this.hub.publish(runId, "status", { run_id: runId, status: "completed", generating: false, generation });
        announceContinuation(this.hub, session, next.session);
      } else await this.finishLoop(session, status, generation);
    }
    if (next) await this.loop(next.session, next.active);
  }

  /** A generation's end that frees the agent: the triggers hear of it, then the lock goes. */
  private async finishLoop(session: RunSession, status: "active" | "completed", generation: number): Promise<void> {
    const { runId } = session;
    // A delivery's cursor advances before the lock is free, so no other generation sees it behind.
    await this.host.hooks.runEnded(session).catch((error) => logEvent("error", { operation: "run.ended", run_id: runId, ...describeError(error) }));
    if (session.stale) this.forget(session);
    await this.release(runId);
    this.hub.publish(runId, "status", { run_id: runId, status, generating: false, generation });
    await this.host.hooks.idle(session.scope.agentId).catch(() => {});
  }

  /** After a hand-off the continuation is written, then the lock passes to it without being released (CHAIN-010). */
  private async continueChain(session: RunSession, handoff: string | null): Promise<{ session: RunSession; active: ActiveGeneration } | null> {
    const opened = await continueAfterHandoff(this.db(), session, handoff, new Date(this.host.now()), platformRedactor(this.host.env));
    if (!opened) return null;
    this.sessions.add(opened);
    return { session: opened, active: this.passLock(session.runId, opened.runId) };
  }

  /** Moves the lock and this instance's active generation to `toRunId` in one tick; the heartbeat stays armed. */
  private passLock(fromRunId: string, toRunId: string): ActiveGeneration {
    if (!this.host.lock.handOver(fromRunId, toRunId, 1, LEASE_MS)) throw new Error(`run ${fromRunId} does not hold the lock it hands over`);
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const previous = this.active;
    this.active = { runId: toRunId, generation: 1, controller: new AbortController(), done, finish };
    previous?.finish();
    return this.active;
  }

  /**
   * Recovery found a lock whose chain has a continuation that never generated: it takes
   * the lock over and generates it (see pendingContinuation). False: recover as usual.
   */
  private async pickUpContinuation(heldRunId: string, session: RunSession): Promise<boolean> {
    const next = await chainToPickUp(this.db(), session, (id) => this.session(id), new Date(this.host.now()));
    if (!next) return false;
    this.sessions.add(next);
    this.host.lock.release(heldRunId);
    const claimed = await this.claim(next.runId, 1);
    if (!claimed.ok) return false;
    this.beginLoop(next, claimed);
    return true;
  }

  /**
   * Records errors that ended a generation outside the loop's own bookkeeping (a refused
   * start, a platform failure, recovery) with the status the run's kind gives, and
   * publishes them.
   */
  private async recordEnding(session: RunSession, errors: RunError[]): Promise<"active" | "completed"> {
    const status = statusAfterGeneration(
      session.facts,
      errors.map((e) => e.code),
    );
    await riding(() => updateRun(this.db(), session.runId, { status, errors }));
    session.facts = { ...session.facts, status, errors: [...session.facts.errors, ...errors] };
    for (const e of errors) this.hub.publish(session.runId, "error", { run_id: session.runId, ...e });
    return status;
  }

  /** The run's session (see SessionCache). */
  private session(runId: string): Promise<RunSession | null> {
    return this.sessions.get(runId);
  }

  /** Drops a session whose memory may not match the database. */
  private forget(session: RunSession): void {
    this.sessions.forget(session);
  }

  /**
   * Runs `work` on the object's connection, which stays open until it is done: for the
   * triggers' own queries (a schedule's next wake-up, a delivery's cursor).
   */
  withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
    return this.connection.use(work);
  }

  /** Keeps the object's connection open while a request's work runs, however slow. */
  private holding<T>(work: () => Promise<T>): Promise<T> {
    return this.connection.use(() => work());
  }

  private db(): Database {
    return this.connection.db();
  }
}

/** A user row's metadata: who wrote it, and its attachments. */
function userMetadata(message: NewMessage, source: string): Record<string, unknown> {
  return { source, ...(message.attachments?.length ? { attachments: message.attachments } : {}) };
}

/** A refusal as the API answers it: 409 with its code and details. */
function refused(refusal: Refusal): Refused {
  return refuse(409, refusal.code, refusal.message, refusal.details);
}

/** A request that met a database outage answers 503; anything else is a bug and goes up. */
function unavailable(error: unknown): Refused {
  if (isTransient(error)) return refuse(503, "database.unavailable", "The database cannot be reached right now; try again shortly");
  throw error;
}
