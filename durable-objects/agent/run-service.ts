import { eq } from "drizzle-orm";
import { openDatabase, type Connection, type Database } from "../../core/db/client";
import { completeDelivery, groupChatOf, planGroupDelivery, reportDelivery } from "./group-run";
import { agents, messages, runs } from "../../core/db/schema";
import { writeMemory } from "../../core/db/memory";
import { appendRow, loadRows, toWireRow, updateRun, type RunError } from "../../core/db/transcript";
import { describeError, logEvent } from "../../core/output/log";
import { platformRedactor } from "../../core/output/redaction";
import { countRowTokens } from "../../core/projection/token-count";
import type { AttachmentRef, ChatPayload } from "../../core/projection/types";
import { messageRefusal, resumeRefusal, statusAfterGeneration, type RunKind } from "../../core/runs/rules";
import { offeredTools } from "../../core/tools/registry";
import { pricesFrom } from "../../core/usage/pricing";
import type { Env } from "../../workers/env";
import type { DeadlineMultiplexer } from "./deadlines";
import { interruptUnresolved, runGeneration } from "./generation";
import type { GenerationLock } from "./generation-lock";
import { generationBounds } from "./request-bounds";
import { PostgresToolStore } from "./tool-store";
import { scheduleTools } from "./schedule-tools";
import { busy, refuse, type Outcome } from "../results";
import { advancePastFire, type ScheduleRow } from "../../core/db/schedules";
import { instructionHash, scheduleWakeUpMessage } from "../../core/schedules/instruction";
import { monthSpend, refreshSecrets } from "./generation-inputs";
import { AgentUnavailable, prepareOpening, writeOneShot, type OneShot } from "./run-opening";
import { RunSession, storedRow } from "./run-session";
import { hubLimits, SseHub } from "../sse-hub";
import { IdleConnection } from "../idle-connection";

/** The lease a generation holds; the heartbeat renews it well before it runs out. */
export const LEASE_MS = 60_000;
export const HEARTBEAT_MS = 20_000;
export const HEARTBEAT = "generation.heartbeat";
/** An idle object closes its database connection after this long. */
const IDLE_CLOSE_MS = 5_000;
/** Runs whose rows stay in memory between generations. */
const MAX_SESSIONS = 8;

interface Host {
  ctx: DurableObjectState;
  env: Env;
  lock: GenerationLock;
  multiplexer: DeadlineMultiplexer;
  now: () => number;
  /** Re-arms the schedule deadline: after a generation (due schedules fire then) and after a schedule tool. */
  afterGeneration: (agentId: string) => Promise<unknown>;
  /** Randomness of the wake-window planner. */
  random: () => number;
}

interface ActiveGeneration {
  runId: string;
  generation: number;
  controller: AbortController;
  done: Promise<void>;
}

export interface NewMessage {
  content: string;
  attachments?: AttachmentRef[];
}

/**
 * The agent's runs as the agent object drives them: creation with the composed system
 * row and the snapshot, user messages under the generation lock, the background loop,
 * cancellation, resume, SSE, and recovery of a generation the object lost.
 */
export class RunService {
  /** Run event streams; replays read pages through one shared connection, never one per subscriber. */
  readonly hub: SseHub;
  private readonly sessions = new Map<string, RunSession>();
  private active: ActiveGeneration | null = null;
  private conn: Connection | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: Host) {
    // Replays share one connection that is never closed under a read in flight.
    const replays = new IdleConnection(host.env, IDLE_CLOSE_MS);
    this.hub = new SseHub(
      (runId, after, limit) => replays.use(async (db) => (await loadRows(db, runId, after, limit)).map(toWireRow)),
      hubLimits(host.env.MAX_RUN_SUBSCRIBERS, host.env.SSE_QUEUE_BYTES, 200),
    );
  }

  /** The generation running in this object's memory, if any. */
  get current(): ActiveGeneration | null {
    return this.active;
  }

  /** `POST /api/agents/:id/runs`: row 0, then row 1 and a generation when a message is given (RUN-003/004). */
  async createRun(agentId: string, input: { kind: RunKind; message?: NewMessage; title?: string | null }): Promise<Outcome<{ run_id: string }>> {
    await this.recoverOrphan();
    const held = this.host.lock.current();
    if (input.message && held) return busy(held.runId);
    const db = this.db();
    const [agent] = await db.select().from(agents).where(eq(agents.id, agentId)).limit(1);
    if (!agent) return refuse(404, "agent.not_found", "No such agent");
    if (agent.archivedAt) return refuse(409, "agent.archived", "The agent is archived");
    const { snapshot, system } = await prepareOpening(db, agent, input.kind, new Date(this.host.now()));
    const title = input.title ?? (input.message ? input.message.content.slice(0, 80) || null : null);
    const run = await db.transaction(async (tx) => {
      const [created] = await tx.insert(runs).values({ agentId, kind: input.kind, title, snapshot, metadata: {} }).returning();
      await tx.insert(messages).values({ runId: created!.id, seq: 0, generation: null, role: "system", payload: system, metadata: { source: "system" }, tokenCount: countRowTokens(system, {}) });
      return created!;
    });
    const session = await this.session(run.id);
    if (input.message) {
      const started = await this.startGeneration(session!, input.message, "operator");
      if (!started.ok) return started;
    }
    return { ok: true, run_id: run.id };
  }

  /** `POST /api/runs/:id/messages`: 409 while the agent generates (GEN-003); refusals per RUN-006/GEN-018. */
  async postMessage(runId: string, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    await this.recoverOrphan();
    const held = this.host.lock.current();
    if (held) return busy(held.runId);
    const session = await this.session(runId);
    if (!session) return refuse(404, "run.not_found", "No such run");
    const refusal = messageRefusal(session.facts);
    if (refusal) return refuse(409, refusal.code, refusal.message, refusal.details);
    return this.startGeneration(session, message, "operator");
  }

  /** `POST /api/runs/:id/cancel` (CANCEL-001..003). */
  async cancel(runId: string): Promise<Outcome<{ cancelled: true }>> {
    await this.recoverOrphan();
    if (!this.active || this.active.runId !== runId) return refuse(409, "run.not_generating", "The run is not generating");
    const active = this.active;
    active.controller.abort();
    await active.done;
    return { ok: true, cancelled: true };
  }

  /** `POST /api/runs/:id/resume` (CANCEL-012/013). */
  async resume(runId: string): Promise<Outcome<{ resumed_at: string }>> {
    const session = await this.session(runId);
    if (!session) return refuse(404, "run.not_found", "No such run");
    const refusal = resumeRefusal(session.facts);
    if (refusal) return refuse(409, refusal.code, refusal.message, refusal.details);
    const resumedAt = new Date(this.host.now()).toISOString();
    await updateRun(this.db(), runId, { status: "active", metadata: { resumed_at: resumedAt } });
    session.facts = { ...session.facts, status: "active", metadata: { ...session.facts.metadata, resumed_at: resumedAt } };
    this.hub.publish(runId, "status", { run_id: runId, status: "active", generating: false });
    return { ok: true, resumed_at: resumedAt };
  }

  /** The heartbeat deadline: renew the lease while the loop runs, or recover a lost one. */
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

  /**
   * A lock held with no loop in this object's memory means the object was evicted,
   * crashed or redeployed mid-generation: unresolved tool calls get interruption results,
   * the error is recorded, one-shot runs complete, and the lock is released. The model
   * call is never replayed (CANCEL-006/007).
   */
  async recoverOrphan(): Promise<void> {
    const held = this.host.lock.current();
    if (!held || this.active) return;
    let agentId: string | undefined;
    try {
      const db = this.db();
      const session = await this.session(held.runId);
      if (session) {
        await interruptUnresolved(db, session, held.generation, (row) => this.hub.publishRow(session.runId, row));
        const errors: RunError[] = [{
          code: "generation.interrupted",
          message: "The generation was interrupted (the agent's object restarted); no model call was replayed",
          generation: held.generation, operation: "recovery", at: new Date(this.host.now()).toISOString(),
        }];
        const status = statusAfterGeneration(session.facts, []);
        await updateRun(db, session.runId, { status, errors });
        session.facts = { ...session.facts, status, errors: [...session.facts.errors, ...errors] };
        this.hub.publish(session.runId, "status", { run_id: session.runId, status, generating: false });
        // An interrupted delivery completes and its cursor advances; dispatch resumes (GROUP-014).
        await completeDelivery(db, this.host.env, session);
        agentId = session.scope.agentId;
      }
    } finally {
      this.host.lock.release(held.runId);
      await this.host.multiplexer.clear(HEARTBEAT);
    }
    if (agentId) await this.host.afterGeneration(agentId).catch(() => {});
  }

  private async startGeneration(session: RunSession, message: NewMessage, source: string): Promise<Outcome<{ seq: number; generation: number }>> {
    const generation = session.facts.generation + 1;
    const acquired = this.host.lock.acquire(session.runId, generation, LEASE_MS);
    if (!acquired.ok) return busy(acquired.busyRunId);
    let userSeq: number;
    try {
      const payload: ChatPayload = { role: "user", content: message.content };
      const metadata = { source, ...(message.attachments?.length ? { attachments: message.attachments } : {}) };
      const tokenCount = countRowTokens(payload, metadata);
      const row = await appendRow(this.db(), { runId: session.runId, seq: session.nextSeq, generation, role: "user", payload: payload as never, metadata, tokenCount });
      await updateRun(this.db(), session.runId, { generation });
      session.facts = { ...session.facts, generation };
      session.push(storedRow({ ...row, tokenCount }));
      this.hub.publishRow(session.runId, row);
      userSeq = row.seq;
    } catch (error) {
      this.host.lock.release(session.runId);
      throw error;
    }
    await this.beginLoop(session, generation);
    return { ok: true, seq: userSeq, generation };
  }

  /** Runs the loop in the object's background; the lock is held and the opening row committed. */
  private async beginLoop(session: RunSession, generation: number): Promise<void> {
    await this.host.multiplexer.set(HEARTBEAT, this.host.now() + HEARTBEAT_MS);
    const controller = new AbortController();
    const active: ActiveGeneration = { runId: session.runId, generation, controller, done: Promise.resolve() };
    active.done = this.loop(session, generation, controller.signal);
    this.active = active;
    this.host.ctx.waitUntil(active.done);
  }

  /**
   * A schedule wake-up (SCHED-013/014/017/018): in one transaction the schedule advances
   * past this fire (only if it still waits for it) and the run opens with its system row
   * and the wake-up message. "skipped" when a repeated alarm or a change got there first.
   */
  async openScheduleRun(agentId: string, schedule: ScheduleRow, firedAt: Date, random: () => number): Promise<"started" | "busy" | "skipped"> {
    return this.openOneShot(agentId, firedAt, async () => ({
      kind: "schedule",
      run: { scheduleId: schedule.id, title: schedule.description, metadata: { instruction_hash: await instructionHash(schedule.instruction) } },
      wake: {
        role: "user",
        content: scheduleWakeUpMessage({
          id: schedule.id, cron: schedule.cron, window: schedule.wakeWindow, instruction: schedule.instruction,
          previous_run_at: schedule.lastRunAt,
        }),
      },
      wakeMetadata: { source: "schedule", schedule_id: schedule.id },
      claim: (tx) => advancePastFire(tx as never, schedule, firedAt, random, true),
    }));
  }

  /**
   * A group delivery (GROUP-001/002): the public rows after the agent's cursor through the
   * latest one, as one group run. "skipped" when none of them wakes the agent.
   */
  async openGroupRun(agentId: string, guildId: string): Promise<"started" | "busy" | "skipped"> {
    return this.openOneShot(agentId, new Date(this.host.now()), async (db) => {
      const delivery = await planGroupDelivery(db, this.host.env, agentId, guildId);
      if (!delivery) return null;
      const throughSeq = delivery.metadata.group_chat_through_seq;
      return {
        kind: "group", run: { title: null, metadata: delivery.metadata }, wake: delivery.wake, wakeMetadata: delivery.wakeMetadata, groupChat: delivery.groupChat,
        opened: (runId) => reportDelivery(db, this.host.env, runId, agentId, guildId, throughSeq, "started"),
      };
    });
  }

  /**
   * Opens a one-shot run: the lock is taken first, then the opening is planned, then in one
   * transaction (guarded by `claim`) the run, its system row and its wake row are written;
   * then it generates.
   */
  private async openOneShot(agentId: string, now: Date, plan: (db: Database) => Promise<OneShot | null>): Promise<"started" | "busy" | "skipped"> {
    const runId = crypto.randomUUID();
    if (!this.host.lock.acquire(runId, 1, LEASE_MS).ok) return "busy";
    try {
      const db = this.db();
      const [agent] = await db.select().from(agents).where(eq(agents.id, agentId)).limit(1);
      if (!agent || agent.archivedAt) throw new AgentUnavailable();
      const shot = await plan(db);
      const opened = shot && await writeOneShot(db, agent, runId, now, shot);
      if (!opened) {
        this.host.lock.release(runId);
        return "skipped";
      }
      await shot.opened?.(runId);
    } catch (error) {
      this.host.lock.release(runId);
      throw error;
    }
    await this.beginLoop((await this.session(runId))!, 1);
    return "started";
  }

  private async loop(session: RunSession, generation: number, signal: AbortSignal): Promise<void> {
    const { env } = this.host;
    const runId = session.runId;
    this.hub.publish(runId, "status", { run_id: runId, status: "active", generating: true, generation });
    let status = session.facts.status;
    try {
      const db = this.db();
      const redactor = platformRedactor(env);
      const baseURL = session.snapshot.model.base_url ?? env.MODEL_BASE_URL;
      const startError = !baseURL
        ? "No model provider is configured (set MODEL_BASE_URL or the agent's model_base_url)"
        : session.snapshot.model.api_key_secret
          ? `The agent's model key secret ${session.snapshot.model.api_key_secret} cannot be resolved yet`
          : null;
      if (startError) {
        const errors: RunError[] = [{ code: baseURL ? "secret.unavailable" : "provider.unconfigured", message: startError, generation, operation: "generation.start", at: new Date(this.host.now()).toISOString() }];
        status = statusAfterGeneration(session.facts, []);
        await updateRun(db, runId, { status, errors });
        session.facts = { ...session.facts, status, errors: [...session.facts.errors, ...errors] };
        for (const e of errors) this.hub.publish(runId, "error", { run_id: runId, ...e });
        return;
      }
      await refreshSecrets(db, session);
      const bounds = generationBounds(env);
      const outcome = await runGeneration({
        db,
        session,
        generation,
        signal,
        provider: { baseURL: baseURL!, apiKey: env.MODEL_API_KEY ?? "", limits: bounds.replyLimits },
        tools: snapshotTools(session),
        store: new PostgresToolStore(db),
        ...(session.snapshot.flags.memory ? { memory: { write: (content: string) => writeMemory(db, session.scope.agentId, content) } } : {}),
        ...(session.snapshot.flags.group_post ? { group: groupChatOf(env, session) } : {}),
        schedules: scheduleTools(db, session.scope.agentId, () => new Date(this.host.now()), this.host.random, () => this.host.afterGeneration(session.scope.agentId)),
        redactor,
        prices: pricesFrom(env.MODEL_PRICES),
        spend: await monthSpend(db, session.scope.organisationId, new Date(this.host.now())),
        hydrate: bounds.hydrate,
        publishRow: (row) => this.hub.publishRow(runId, row),
        publish: (event, data) => this.hub.publish(runId, event, data),
        now: this.host.now,
      });
      status = outcome.status;
      for (const e of outcome.errors) this.hub.publish(runId, "error", { run_id: runId, ...e });
    } catch (error) {
      logEvent("error", { operation: "generation", run_id: runId, agent_id: session.scope.agentId, guild_id: session.scope.guildId, ...describeError(error) }, platformRedactor(env));
      const errors: RunError[] = [{ code: "generation.failed", message: "The generation failed on the platform side", generation, operation: "generation", at: new Date(this.host.now()).toISOString() }];
      await updateRun(this.db(), runId, { errors }).catch(() => {});
      this.hub.publish(runId, "error", { run_id: runId, ...errors[0] });
    } finally {
      this.host.lock.release(runId);
      await this.host.multiplexer.clear(HEARTBEAT);
      this.active = null;
      this.hub.publish(runId, "status", { run_id: runId, status, generating: false, generation });
      await completeDelivery(this.db(), env, session).catch((error) => logEvent("error", { operation: "group.complete_delivery", run_id: runId, ...describeError(error) }));
      await this.host.afterGeneration(session.scope.agentId).catch(() => {});
    }
  }

  /**
   * The run's session, loaded from Postgres once per wake. The object is the single
   * writer of its agent's runs, so what it holds in memory stays current.
   */
  private async session(runId: string): Promise<RunSession | null> {
    const cached = this.sessions.get(runId);
    if (cached) {
      // Most recently used last, so the oldest is evicted first.
      this.sessions.delete(runId);
      this.sessions.set(runId, cached);
      return cached;
    }
    const loaded = await RunSession.load(this.db(), runId);
    if (!loaded) return null;
    this.sessions.set(runId, loaded);
    for (const [id] of this.sessions) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      if (id !== this.active?.runId) this.sessions.delete(id);
    }
    return loaded;
  }

  /** Drops what memory holds (the agent was deleted). */
  reset(): void {
    this.sessions.clear();
  }

  /** The object's database connection (opened on first use). */
  database(): Database {
    return this.db();
  }

  /**
   * One connection while the object works, closed after IDLE_CLOSE_MS without use and
   * no generation: thousands of idle agents must not hold thousands of connections.
   */
  private db(): Database {
    this.conn ??= openDatabase(this.host.env);
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.closeIdle(), IDLE_CLOSE_MS);
    return this.conn.db;
  }

  private closeIdle(): void {
    if (this.active) {
      this.idleTimer = setTimeout(() => this.closeIdle(), IDLE_CLOSE_MS);
      return;
    }
    const conn = this.conn;
    this.conn = null;
    void conn?.close();
  }
}

/** The definitions behind the run's snapshotted schemas: the tools it was offered, no others (EXACT-005). */
function snapshotTools(session: RunSession) {
  const offered = new Set(session.snapshot.tools.map((t) => t.function.name));
  return offeredTools({ kind: session.facts.kind, ...session.snapshot.flags }).filter((d) => offered.has(d.name));
}
