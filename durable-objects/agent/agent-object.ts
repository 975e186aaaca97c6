import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import { type Outcome, refuse } from "../../bindings/outcome";
import type { WireVariant } from "../../core/db/variants";
import type { RepoDiff } from "../../core/repos/changes";
import type { RunKind } from "../../core/runs/rules";
import type { ScriptChange } from "../../core/scripts/types";
import { type Deadline, deadlineKind } from "../common/deadlines";
import { serveRunEvents } from "../common/sse-hub";
import type { SandboxState, SandboxView, ViewTarget } from "../sandbox/manager";
import type { VariantBatch } from "./generation/variants";
import type * as RoomsModule from "./rooms";
import type { Rooms } from "./rooms";
import { servedAgent } from "./state/context";
import type { CreatedRun, NewMessage } from "./triggers/direct";

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
 * One object per agent, addressed by the agent id (`idFromName(agentId)`): the single
 * writer of the agent's runs. It holds the generation lock and multiplexes every deadline
 * of the agent onto its one alarm. Its methods are the Worker's RPC surface; the work is
 * done in its rooms (see rooms.ts and docs/architecture.md): triggers open runs, the run
 * lifecycle generates them, the sandbox room keeps the box.
 */
export class AgentObject extends DurableObject<Env> {
  /** The clock every room reads (deadlines, leases); tests replace it through `runInDurableObject`. */
  now: () => number = () => Date.now();
  /** Randomness of the wake-window planner; tests may pin it. */
  random: () => number = () => Math.random();
  #rooms!: Rooms;
  /** The rooms' module, loaded once at the object's start (see rooms.ts for why calls import nothing). */
  #module!: typeof RoomsModule;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      // Loaded here, not imported: an isolate that only serves the API never evaluates the rooms.
      this.#module = await import("./rooms");
      this.#rooms = this.#module.openRooms(ctx, env, this);
      await this.#rooms.context.box.objectStarted();
    });
  }

  /** The rooms, for tests that reach inside through `runInDurableObject`. */
  get rooms(): Rooms {
    return this.#rooms;
  }

  /** The object's one alarm: runs whatever deadlines are due and re-arms at the next. */
  override async alarm(): Promise<void> {
    await this.#rooms.context.deadlines.fire(this.now(), this.#rooms.deadlineHandlers);
  }

  /** `GET /runs/:id/events?after=N`: the run's SSE stream, forwarded by the Worker. */
  override async fetch(request: Request): Promise<Response> {
    const { hub, lock } = this.#rooms.context;
    return serveRunEvents(request, hub, (runId) => lock.held()?.runId === runId);
  }

  /** Creates a run of this agent; with a message it starts generating (RUN-003/004). */
  createRun(agentId: string, input: { kind: RunKind; message?: NewMessage; title?: string | null }): Promise<Outcome<CreatedRun>> {
    return this.#rooms.direct.createRun(agentId, input);
  }

  /** A user message on a run: 409 agent.busy while any run of the agent generates (GEN-003). */
  postMessage(runId: string, message: NewMessage): Promise<Outcome<{ seq: number; generation: number }>> {
    return this.#rooms.direct.postMessage(runId, message);
  }

  /** Stops the run's generation (CANCEL-001..003). */
  cancel(runId: string): Promise<Outcome<{ cancelled: true }>> {
    return this.#rooms.runs.cancel(runId);
  }

  /** Resumes a run a failure stopped (CANCEL-012/013). */
  resume(runId: string): Promise<Outcome<{ resumed_at: string }>> {
    return this.#rooms.runs.resume(runId);
  }

  /** Archives (or unarchives) a run; refused while it generates (RUN-024). */
  archive(runId: string, archived: boolean): Promise<Outcome<{ archived_at: string | null }>> {
    return this.#rooms.runs.archive(runId, archived);
  }

  /**
   * Re-arms the schedule deadline after any change to the agent's schedules or its
   * guild's routines switch; returns the time it is armed at, or null.
   */
  refreshSchedules(agentId: string): Promise<string | null> {
    return this.#rooms.schedules.refresh(agentId);
  }

  /** The guild object: new public rows wake this agent (GROUP-011). */
  queueGroupDelivery(agentId: string, guildId: string): Promise<void> {
    return this.#rooms.groupDeliveries.queue(agentId, guildId);
  }

  /** Whether a generation holds the agent's lock, and which. */
  async generationState(): Promise<GenerationState> {
    const held = this.#rooms.context.lock.held();
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
    return this.#rooms.context.deadlines.list().map(deadlineView);
  }

  /**
   * Sets (creates or replaces) a deadline. `dueAt` is epoch milliseconds or an ISO-8601
   * time; the name's kind (before the first ':') must have a registered handler.
   */
  async setDeadline(name: string, dueAt: string | number, payload?: unknown): Promise<DeadlineView> {
    const kind = deadlineKind(String(name));
    if (!Object.hasOwn(this.#rooms.deadlineHandlers, kind)) throw new RangeError(`unknown deadline kind "${kind}"`);
    return deadlineView(await this.#rooms.context.deadlines.set(name, parseTime(dueAt), payload));
  }

  /** Removes a deadline; true if it existed. */
  clearDeadline(name: string): Promise<boolean> {
    return this.#rooms.context.deadlines.clear(name);
  }

  /** The last 100 successful firings, oldest first. */
  async firedDeadlines(): Promise<FiredDeadlineView[]> {
    return this.#rooms.firings.list().map((f) => ({ name: f.name, due_at: iso(f.dueAt), fired_at: iso(f.firedAt) }));
  }

  /**
   * The agent was deleted: drop every deadline and the lock so nothing of it fires
   * again. Refused while a generation holds the lock.
   */
  async forget(): Promise<{ forgotten: boolean; busyRunId?: string }> {
    const { context } = this.#rooms;
    const held = context.lock.held();
    if (held && context.lock.active) return { forgotten: false, busyRunId: held.runId };
    context.sessions.clear();
    context.redaction.forgetAll();
    const agentId = servedAgent(context);
    if (agentId) await context.box.forget(agentId);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    context.deadlines.storageCleared();
    context.lock.stored.storageCleared();
    this.#module.migrateStorage(this.ctx.storage.sql);
    return { forgotten: true };
  }

  /**
   * The Browser or CLI tab brings the box up (SBX-002, SBX-023): where the Worker proxies
   * it (`port` on the `box`'s Container object, under `pathPrefix` for ttyd), or why not.
   */
  async sandboxForView(view: SandboxView): Promise<ViewTarget> {
    if (view !== "browser" && view !== "cli") return { ok: false, code: "sandbox.view_unknown", message: `No sandbox view ${String(view)}` };
    const { box } = this.#rooms.context;
    const agentId = servedAgent(this.#rooms.context);
    if (!agentId) return { ok: false, code: "sandbox.unavailable", message: "The agent object does not know its agent id" };
    return box.forView(agentId, view);
  }

  /**
   * The start..end diff of a repository the run recorded (REPO-022..025): made by git in the
   * box, which comes up as for the CLI tab (SBX-039), redacted with the agent's secret values.
   */
  async runDiff(runId: string, repository: string): Promise<Outcome<RepoDiff>> {
    const { context } = this.#rooms;
    const agentId = servedAgent(context);
    if (!agentId) return refuse(503, "sandbox.unavailable", "The agent object does not know its agent id");
    return this.#module.runDiff(context, agentId, runId, repository);
  }

  /**
   * What-if replay (decision 0022): a recorded model call sent again with each variant's
   * settings. Never takes or waits for the generation lock, never writes the run's rows.
   */
  async runVariants(batch: VariantBatch): Promise<Outcome<{ batch_id: string; variants: WireVariant[] }>> {
    return this.#module.runVariants(this.#rooms.context, batch);
  }

  /** Operator input on a proxied view: restarts the idle timer at most every 30 s (SBX-030). */
  sandboxViewInput(): Promise<{ restarted: boolean; idle_deadline?: string }> {
    return this.#rooms.context.box.viewInput();
  }

  /** The box as the console shows it. */
  sandboxState(): Promise<SandboxState> {
    return this.#rooms.context.box.state(servedAgent(this.#rooms.context));
  }

  /** "Reset home": the box destroyed without a save, the saved home deleted; refused while generating. */
  async sandboxResetHome(): Promise<{ ok: true; destroyed: boolean } | { ok: false; code: string; message: string }> {
    const { box } = this.#rooms.context;
    const agentId = servedAgent(this.#rooms.context);
    if (!agentId) return { ok: false, code: "sandbox.unavailable", message: "The agent object does not know its agent id" };
    return box.resetHome(agentId);
  }

  /**
   * A secret reaching this agent changed (SEC-009, SBX-038): an idle box is saved and
   * destroyed now, a generating agent's after its generation, before its lock is released.
   */
  secretsChanged(): Promise<{ destroyed: boolean; deferred: boolean }> {
    return this.#rooms.context.box.secretsChanged();
  }

  /** browser, coding or browser_language changed (SBX-022): an idle box is saved and destroyed. */
  sandboxSettingsChanged(): Promise<{ destroyed: boolean }> {
    return this.#rooms.context.box.settingsChanged();
  }

  /**
   * The agent's script catalog changed through the API (SCRIPT-030, SCRIPT-049): deleted
   * names leave the snapshots this object holds, and a running box's scripts folder follows.
   */
  async scriptsChanged(change: ScriptChange): Promise<void> {
    const { context } = this.#rooms;
    context.sessions.forgetScripts(change);
    const files = context.box.runningFiles();
    const agentId = servedAgent(context);
    if (!agentId || !files) return;
    const active = context.lock.active;
    const session = active ? await context.sessions.get(active.runId) : null;
    await this.#module.syncScriptsToBox({
      agentId,
      change,
      files,
      generating: session ? new Set(session.snapshot.scripts.map((s) => s.name)) : null,
      database: context.database,
    });
  }
}

function deadlineView(entry: Deadline): DeadlineView {
  return { name: entry.name, kind: entry.kind, due_at: iso(entry.dueAt), version: entry.version, attempts: entry.attempts };
}

function parseTime(value: string | number): number {
  const ms = typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new RangeError("due_at must be epoch milliseconds or an ISO-8601 time");
  return ms;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
