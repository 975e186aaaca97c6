import type { Env } from "../../bindings/env";
import { type Outcome, refuse } from "../../bindings/outcome";
import type { RepoDiff } from "../../core/repos/changes";
import type { RunKind } from "../../core/runs/rules";
import type { ScriptChange } from "../../core/scripts/types";
import { keySetFrom } from "../../core/secrets/crypto";
import { DeadlineLog } from "../common/deadline-log";
import { type Deadline, type DeadlineHandler, DeadlineMultiplexer, deadlineKind } from "../common/deadlines";
import { SandboxManager, type SandboxState, type SandboxView, type ViewTarget } from "../sandbox/manager";
import { runDiff } from "../sandbox/run-diff";
import { syncScriptsToBox } from "../sandbox/script-sync";
import { type CreatedRun, HEARTBEAT, type NewMessage, RunService } from "./run/lifecycle";
import { GenerationLock } from "./state/generation-lock";
import { RedactionMemory } from "./state/redaction-memory";
import { GROUP_DELIVERY, GroupDelivery } from "./triggers/group";
import { SCHEDULE, ScheduleFiring } from "./triggers/schedule";

/** `generationState()`: the agent's lock as the Worker reports it (UTC ISO times). */
export interface GenerationState {
  generating: boolean;
  run_id?: string;
  generation?: number;
  started_at?: string;
  lease_until?: string;
  /** The lease ran out without a release: the generation is presumed dead (recovery pending). */
  lease_expired?: boolean;
}

/** `deadlines()`: one pending deadline, for diagnostics (the payload is left out). */
export interface DeadlineView {
  name: string;
  kind: string;
  due_at: string;
  version: number;
  attempts: number;
}

/** `firedDeadlines()`: one successful firing. */
export interface FiredDeadlineView {
  name: string;
  due_at: string;
  fired_at: string;
}

/**
 * One object per agent, addressed by the agent id (`idFromName(agentId)`).
 * It is the single writer of the agent's runs: it holds the generation lock and
 * multiplexes every deadline of the agent onto the object's one alarm.
 *
 * Arrows point one way: the object → its triggers (schedule firing, group delivery),
 * each owning its run's opening and end → the run lifecycle (RunService) → the
 * generation, the session, the lock and the deadlines.
 */
export class AgentCore {
  /**
   * The clock every part of the object reads (deadlines, lease times). Public so tests
   * can replace it through `runInDurableObject` and drive time without waiting.
   */
  now: () => number = () => Date.now();

  /** The agent's named deadlines on the object's one alarm. */
  readonly multiplexer: DeadlineMultiplexer;
  /** One generation at a time per agent (GEN-002). */
  readonly lock: GenerationLock;
  /**
   * Handlers by deadline kind (the sandbox's idle timer will be one more); a kind that
   * is not registered cannot be set over RPC, and a stored entry of an unknown kind is
   * dropped when it comes due.
   */
  readonly deadlineHandlers: Record<string, DeadlineHandler>;
  private readonly firings: DeadlineLog;
  /** The agent's runs: creation, the generation loop, cancel, resume, SSE, recovery. */
  readonly runs: RunService;
  /** Schedule wake-ups on the object's alarm. */
  readonly schedules: ScheduleFiring;
  /** Group chat deliveries on the object's alarm. */
  readonly groupDeliveries: GroupDelivery;
  /** The agent's box: ensure, idle timer, home saves (SBX-*). */
  readonly sandboxes: SandboxManager;
  /** Values of the redaction sets kept past their generation: a run's secrets, valid tokens. */
  readonly redaction: RedactionMemory;
  /** Randomness of the wake-window planner; tests may pin it. */
  random: () => number = () => Math.random();

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Env,
  ) {
    const sql = ctx.storage.sql;
    const clock = () => this.now();
    this.firings = new DeadlineLog(sql);
    this.multiplexer = new DeadlineMultiplexer(ctx.storage, clock, {
      onFired: (entry, firedAt) => this.firings.record(entry.name, entry.dueAt, firedAt),
    });
    this.lock = new GenerationLock(sql, clock);
    this.redaction = new RedactionMemory(
      sql,
      () => ctx.id.name,
      () => keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS),
    );
    this.sandboxes = new SandboxManager({
      env,
      sql,
      multiplexer: this.multiplexer,
      now: clock,
      generating: () => this.lock.current() !== null,
      waitUntil: (work) => ctx.waitUntil(work),
      withDatabase: (work) => this.runs.withDatabase(work),
    });
    this.runs = new RunService({
      ctx,
      env,
      lock: this.lock,
      multiplexer: this.multiplexer,
      redaction: this.redaction,
      now: clock,
      hooks: {
        // Both before the lock is released: a delivery's cursor, and the box's measurement,
        // idle timer or deferred destruction (SBX-041, SBX-028, SEC-009).
        runEnded: async (session) => {
          await this.groupDeliveries.runEnded(session);
          await this.sandboxes.generationEnded();
        },
        // The agent is free: a waiting group delivery and due schedules go now.
        idle: async (agentId) => {
          await this.groupDeliveries.pull();
          await this.schedules.refresh(agentId);
        },
        schedulesChanged: async (agentId) => {
          await this.schedules.refresh(agentId);
        },
        sandboxAtStart: (request, db) => this.sandboxes.generationStarting(request, db),
        secretsChanged: () => this.sandboxes.secretsChanged(),
        boxRunning: () => this.sandboxes.running(),
      },
      random: () => this.random(),
    });
    this.schedules = new ScheduleFiring({ runs: this.runs, multiplexer: this.multiplexer, lock: this.lock, now: clock, random: () => this.random() });
    this.groupDeliveries = new GroupDelivery({ env, runs: this.runs, multiplexer: this.multiplexer, lock: this.lock, now: clock });
    this.deadlineHandlers = {
      // Does nothing but succeed: lets operators and tests check the whole alarm path.
      probe: () => {},
      // Renews a running generation's lease; recovers one the object lost (CANCEL-006).
      [HEARTBEAT]: () => this.runs.heartbeat(),
      // The agent's earliest schedule wake-up (SCHED-006..010).
      [SCHEDULE]: (entry) => this.schedules.fire(entry),
      // A queued group chat delivery (GROUP-009, GROUP-011).
      [GROUP_DELIVERY]: (entry) => this.groupDeliveries.fire(entry),
      // The sandbox's idle timer (SBX-031) and its periodic home save.
      ...this.sandboxes.handlers(),
    };
  }

  /** The object's one alarm: runs whatever deadlines are due and re-arms at the next. */
  async alarm(): Promise<void> {
    await this.multiplexer.fire(this.now(), this.deadlineHandlers);
  }

  /** Creates a run of this agent; with a message it starts generating (RUN-003/004). */
  async createRun(agentId: string, input: { kind: RunKind; message?: NewMessage; title?: string | null }): Promise<Outcome<CreatedRun>> {
    return this.runs.createRun(agentId, input);
  }

  /** A user message on a run: 409 agent.busy while any run of the agent generates (GEN-003). */
  async postMessage(runId: string, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    return this.runs.postMessage(runId, message);
  }

  /**
   * Re-arms the schedule deadline after any change to the agent's schedules or its
   * guild's routines switch; returns the time it is armed at, or null.
   */
  async refreshSchedules(agentId: string): Promise<string | null> {
    return this.schedules.refresh(agentId);
  }

  /** The guild object: new public rows wake this agent (GROUP-011). */
  async queueGroupDelivery(agentId: string, guildId: string): Promise<void> {
    await this.groupDeliveries.queue(agentId, guildId);
  }

  async cancel(runId: string): Promise<Outcome<{ cancelled: true }>> {
    return this.runs.cancel(runId);
  }

  async resume(runId: string): Promise<Outcome<{ resumed_at: string }>> {
    return this.runs.resume(runId);
  }

  /** Archives (or unarchives) a run; refused while it generates (RUN-024). */
  async archive(runId: string, archived: boolean): Promise<Outcome<{ archived_at: string | null }>> {
    return this.runs.archive(runId, archived);
  }

  /** `GET /runs/:id/events?after=N`: the run's SSE stream, forwarded by the Worker. */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const match = /^\/runs\/([0-9a-f-]{36})\/events$/.exec(url.pathname);
    if (!match) return new Response("not found", { status: 404 });
    const after = Number(url.searchParams.get("after") ?? "-1");
    const runId = match[1]!;
    return this.runs.hub.subscribe(runId, Number.isFinite(after) ? after : -1, () => ({
      run_id: runId,
      generating: this.lock.current()?.runId === runId,
    }));
  }

  /** Whether a generation holds the agent's lock, and which. */
  async generationState(): Promise<GenerationState> {
    const held = this.lock.current();
    if (!held) return { generating: false };
    return {
      generating: true,
      run_id: held.runId,
      generation: held.generation,
      started_at: iso(held.startedAt),
      lease_until: iso(held.leaseUntil),
      lease_expired: held.leaseUntil <= this.now(),
    };
  }

  /** Pending deadlines, earliest first (diagnostics). */
  async deadlines(): Promise<DeadlineView[]> {
    return this.multiplexer.list().map(deadlineView);
  }

  /**
   * Sets (creates or replaces) a deadline. `dueAt` is epoch milliseconds or an ISO-8601
   * time; the name's kind (before the first ':') must have a registered handler.
   */
  async setDeadline(name: string, dueAt: string | number, payload?: unknown): Promise<DeadlineView> {
    const kind = deadlineKind(String(name));
    if (!Object.hasOwn(this.deadlineHandlers, kind)) {
      throw new RangeError(`unknown deadline kind "${kind}"`);
    }
    return deadlineView(await this.multiplexer.set(name, parseTime(dueAt), payload));
  }

  /** Removes a deadline; true if it existed. */
  async clearDeadline(name: string): Promise<boolean> {
    return this.multiplexer.clear(name);
  }

  /**
   * The agent was deleted: drop every deadline and the lock so nothing of it fires
   * again. Refused while a generation holds the lock.
   */
  async forget(): Promise<{ forgotten: boolean; busyRunId?: string }> {
    const held = this.lock.current();
    if (held && this.runs.current) return { forgotten: false, busyRunId: held.runId };
    this.runs.sessions.clear();
    this.redaction.forgetAll();
    const agentId = this.ctx.id.name;
    if (agentId) await this.sandboxes.forget(agentId);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.migrateStorage();
    return { forgotten: true };
  }

  /** Creates or upgrades the object's SQLite tables; run before any event reaches the object. */
  migrateStorage(): void {
    const sql = this.ctx.storage.sql;
    DeadlineMultiplexer.migrate(sql);
    GenerationLock.migrate(sql);
    DeadlineLog.migrate(sql);
    SandboxManager.migrate(sql);
    RedactionMemory.migrate(sql);
  }

  /**
   * The Browser or CLI tab brings the box up (SBX-002, SBX-023): where the Worker proxies
   * it (`port` on the `box`'s Container object, under `pathPrefix` for ttyd), or why not.
   */
  async sandboxForView(view: SandboxView): Promise<ViewTarget> {
    if (view !== "browser" && view !== "cli") return { ok: false, code: "sandbox.view_unknown", message: `No sandbox view ${String(view)}` };
    const agentId = this.ctx.id.name;
    if (!agentId) return { ok: false, code: "sandbox.unavailable", message: "The agent object does not know its agent id" };
    return this.sandboxes.forView(agentId, view);
  }

  /**
   * The start..end diff of a repository the run recorded (REPO-022..025): made by git in the
   * box, which comes up as for the CLI tab (SBX-039), redacted with the agent's secret values.
   */
  async runDiff(runId: string, repository: string): Promise<Outcome<RepoDiff>> {
    const agentId = this.ctx.id.name;
    if (!agentId) return refuse(503, "sandbox.unavailable", "The agent object does not know its agent id");
    return runDiff(
      { env: this.env, sandboxes: this.sandboxes, redaction: this.redaction, withDatabase: (work) => this.runs.withDatabase(work), now: this.now },
      agentId,
      runId,
      repository,
    );
  }

  /** Operator input on a proxied view: restarts the idle timer at most every 30 s (SBX-030). */
  async sandboxViewInput(): Promise<{ restarted: boolean; idle_deadline?: string }> {
    return this.sandboxes.viewInput();
  }

  /** The box as the console shows it. */
  async sandboxState(): Promise<SandboxState> {
    return this.sandboxes.state(this.ctx.id.name ?? null);
  }

  /** "Reset home": the box destroyed without a save, the saved home deleted; refused while generating. */
  async sandboxResetHome(): Promise<{ ok: true; destroyed: boolean } | { ok: false; code: string; message: string }> {
    const agentId = this.ctx.id.name;
    if (!agentId) return { ok: false, code: "sandbox.unavailable", message: "The agent object does not know its agent id" };
    return this.sandboxes.resetHome(agentId);
  }

  /**
   * A secret reaching this agent changed (SEC-009, SBX-038): an idle box is saved and
   * destroyed now, a generating agent's after its generation, before its lock is released.
   */
  async secretsChanged(): Promise<{ destroyed: boolean; deferred: boolean }> {
    return this.sandboxes.secretsChanged();
  }

  /**
   * The agent's script catalog changed through the API (SCRIPT-030, SCRIPT-049): deleted
   * names leave the snapshots this object holds, and a running box's scripts folder follows.
   */
  async scriptsChanged(change: ScriptChange): Promise<void> {
    this.runs.sessions.forgetScripts(change);
    const agentId = this.ctx.id.name;
    const files = this.sandboxes.runningFiles();
    if (!agentId || !files) return;
    const current = this.runs.current;
    const session = current ? await this.runs.sessions.get(current.runId) : null;
    await syncScriptsToBox({
      agentId,
      change,
      files,
      generating: session ? new Set(session.snapshot.scripts.map((s) => s.name)) : null,
      withDatabase: (work) => this.runs.withDatabase(work),
    });
  }

  /** browser, coding or browser_language changed (SBX-022): an idle box is saved and destroyed. */
  async sandboxSettingsChanged(): Promise<{ destroyed: boolean }> {
    return this.sandboxes.settingsChanged();
  }

  /** The last 100 successful firings, oldest first. */
  async firedDeadlines(): Promise<FiredDeadlineView[]> {
    return this.firings.list().map((f) => ({ name: f.name, due_at: iso(f.dueAt), fired_at: iso(f.firedAt) }));
  }
}

function deadlineView(entry: Deadline): DeadlineView {
  return {
    name: entry.name,
    kind: entry.kind,
    due_at: iso(entry.dueAt),
    version: entry.version,
    attempts: entry.attempts,
  };
}

function parseTime(value: string | number): number {
  const ms = typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new RangeError("due_at must be epoch milliseconds or an ISO-8601 time");
  return ms;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
