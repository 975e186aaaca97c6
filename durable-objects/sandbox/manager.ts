/**
 * The agent's sandbox as its object drives it: ensure at generation start and for the
 * Browser and CLI tabs, the idle timer on the object's alarm (SBX-028..035), the periodic
 * home save, the workspace limit (SBX-040/041), and destruction after a secret change
 * (SEC-009, SBX-038) or a settings change (SBX-022). Every lifecycle step runs one at a
 * time (`serial`), so a view opening while a generation starts never starts two boxes.
 */
import type { Env } from "../../bindings/env";
import { untilAborted } from "../../core/async/until-aborted";
import type { Database } from "../../core/db/client";
import { describeError, logEvent } from "../../core/output/log";
import type { GuestClient } from "../../core/sandbox/guest-client";
import { guestFiles } from "../../core/sandbox/guest-files";
import { type IdleEvent, idleAction, idleMs } from "../../core/sandbox/idle";
import { type Box, boxFor } from "../../core/sandbox/metadata";
import { cliSecret } from "../../core/sandbox/views";
import type { SandboxFiles } from "../../core/scripts/materialise";
import type { SandboxAccess } from "../../core/tools/types";
import { type Deadline, type DeadlineMultiplexer, retryDelay } from "../common/deadlines";
import type { DatabasePort } from "../common/idle-connection";
import { sandboxAccess } from "./access";
import { SandboxHomes } from "./home";
import { currentEnsureRequest, type EnsureRequest, type RequestOutcome } from "./inputs";
import { asSandboxError, type BoxIdentity, SandboxLifecycle } from "./lifecycle";
import { SandboxRecord } from "./record";
import { refreshSeed, type SeedRefresh } from "./seed";
import { describeState, type SandboxState } from "./state";
import { WorkspaceLimits } from "./workspace";

export type { SandboxState } from "./state";

export const SANDBOX_IDLE = "sandbox.idle";
export const SANDBOX_HOME_SAVE = "sandbox.home_save";
/** How often a running box's home is saved besides the idle path. */
export const HOME_SAVE_EVERY_MS = 10 * 60_000;

/** The guest's ports of the two views (SANDBOX-PLAN): noVNC and ttyd. */
const VIEW_PORTS = { browser: 6080, cli: 7681 } as const;

export type SandboxView = keyof typeof VIEW_PORTS;

/** `sandboxForView`: where the Worker proxies the tab, or why it cannot. */
/** Where a view's requests go: `port` on the Container object named `container` of class `box`. */
export type ViewTarget = { ok: true; box: Box; container: string; port: number; pathPrefix?: string } | { ok: false; code: string; message: string };

type Refusal = { ok: false; code: string; message: string };

/** The box an operator's view or command reaches, or why it cannot come up. */
export type Woken = { ok: true; box: Box; container: string; guest: GuestClient } | Refusal;

/** What a generation gets at its start: access for its tools, or a generation-start error. */
export type GenerationSandbox =
  | {
      ok: true;
      access: SandboxAccess;
      /** false: the box could not start and every call answers why. */
      up: boolean;
      /** The box started now, from nothing or its repository's seed: nothing of a tenant has run in it or on its volume. */
      pristine: boolean;
    }
  | { ok: false; code: string; message: string };

interface Host {
  env: Env;
  sql: SqlStorage;
  multiplexer: DeadlineMultiplexer;
  now: () => number;
  /** Whether a generation holds the agent's lock. */
  generating: () => boolean;
  /** Keeps the object alive for background work. */
  waitUntil: (work: Promise<unknown>) => void;
  /** The object's database connection. */
  database: DatabasePort;
  /** Which box this is and what it keeps (default: the agent's own box and home). */
  identity?: BoxIdentity;
  /** The archive's object key in R2 by agent (default: the agent's home). */
  archiveKey?: (agentId: string) => string;
  /** The key of the repository seed a box without an archive starts from (a task's), null while unknown. */
  seedKey?: () => string | null;
}

export class SandboxManager {
  private readonly record: SandboxRecord;
  private readonly lifecycle: SandboxLifecycle;
  private readonly homes: SandboxHomes;
  private queue: Promise<unknown> = Promise.resolve();
  /** The box an ensure is bringing up, for sandboxState. */
  private starting: Box | null = null;
  /** The agent was deleted: no box may come up for it again in this object. */
  private forgotten = false;
  /** The workspace limit (SBX-040): the home's cap, and whether a box may start. */
  private readonly workspace: WorkspaceLimits;

  constructor(private readonly host: Host) {
    this.record = new SandboxRecord(host.sql);
    this.workspace = new WorkspaceLimits(host.env, host.database);
    this.homes = new SandboxHomes(host.env.SANDBOX_HOMES, host.archiveKey, host.seedKey);
    this.lifecycle = new SandboxLifecycle(host.env, this.record, this.homes, host.now, () => this.forgotten, host.identity);
  }

  static migrate(sql: SqlStorage): void {
    SandboxRecord.migrate(sql);
  }

  /**
   * Deadline handlers by kind, for the object's multiplexer. They return at once and do
   * their work in the background: saving a large home takes a while, and the multiplexer
   * runs one handler at a time, so a save must not hold back the heartbeat of a
   * generation that starts meanwhile. The idle handler re-arms itself to retry.
   */
  handlers() {
    return {
      [SANDBOX_IDLE]: (entry: Deadline) => this.host.waitUntil(this.serial(() => this.idleFired(entry))),
      [SANDBOX_HOME_SAVE]: () => this.host.waitUntil(this.serial(() => this.periodicSave())),
    };
  }

  /**
   * Right after a pristine box's preparation, before anything of the tenant runs in it: its
   * volume becomes its repository's seed when the stored one is older than `maxAgeMs`.
   */
  refreshSeed(maxAgeMs: number): Promise<SeedRefresh> {
    return this.serial(async () => {
      const row = this.record.get();
      if (!row?.running) return { saved_bytes: null, reason: "no_box" };
      const cap = await this.workspace.homeCap(row.metadata.agent_id);
      return refreshSeed(this.homes, this.lifecycle.guest(row), cap, this.host.now(), maxAgeMs);
    });
  }

  /**
   * At generation start, for runs that offer a sandbox tool: cancel the idle timer
   * (SBX-029), ensure the box, check the workspace (SBX-040). A box that cannot start is
   * not a start error: the tools answer sandbox.unavailable.
   */
  generationStarting(request: EnsureRequest, db: Database): Promise<GenerationSandbox> {
    return this.serial(async () => {
      await this.idle("generation_started");
      this.starting = boxFor(request.flags);
      const cap = await this.workspace.homeCap(request.agentId, db);
      const ensured = await this.lifecycle.ensure(request, cap).finally(() => {
        this.starting = null;
      });
      const full = await this.workspace.full(db, request.agentId, ensured);
      if (full) return { ok: false, code: "workspace.full", message: full };
      const pristine = ensured.ok && (ensured.restored === "none" || ensured.restored === "seed");
      return { ok: true, access: sandboxAccess(ensured), up: ensured.ok, pristine };
    });
  }

  /**
   * After a generation, before its lock is released: measure the workspace (SBX-041),
   * then destroy the box if a secret changed meanwhile (SEC-009), else arm the idle timer.
   */
  generationEnded(): Promise<void> {
    return this.serial(async () => {
      const row = this.record.get();
      if (!row?.running) return;
      await this.workspace.measure(row.metadata.agent_id, this.lifecycle.guest(row));
      if (row.destroyAfterGeneration) await this.retireNow("secret_changed");
      else await this.idle("generation_ended");
    });
  }

  /** SBX-035, CANCEL-011: a running box of an idle agent gets its timer when the object starts. */
  async objectStarted(): Promise<void> {
    await this.idle("object_started");
  }

  /**
   * SEC-009, SBX-038: destroy an idle box now; a generating agent's after its generation.
   * A box whose home cannot be saved is kept and retried (`destroyed: false`).
   */
  secretsChanged(): Promise<{ destroyed: boolean; deferred: boolean }> {
    return this.serial(async () => {
      const row = this.record.get();
      if (!row?.running) return { destroyed: false, deferred: false };
      if (this.host.generating()) {
        this.record.destroyAfterGeneration();
        return { destroyed: false, deferred: true };
      }
      return { destroyed: await this.retireNow("secret_changed"), deferred: false };
    });
  }

  /** SBX-022, OP-SBX-8: browser, coding or browser_language changed; a generating agent's box is left to the next ensure. */
  settingsChanged(): Promise<{ destroyed: boolean }> {
    return this.serial(async () => {
      const row = this.record.get();
      if (!row?.running || this.host.generating()) return { destroyed: false };
      return { destroyed: await this.retireNow("settings_changed") };
    });
  }

  /**
   * The Browser or CLI tab (SBX-002, SBX-023): brings the box up as the agent is
   * configured now (a generating agent's running box is used as is), starts the idle
   * timer, and for the CLI starts ttyd and returns its secret path.
   */
  forView(agentId: string, view: SandboxView): Promise<ViewTarget> {
    return this.serial(async () => {
      const ensured = await this.wake(
        () => this.host.database.use((db) => currentEnsureRequest(db, this.host.env, agentId)),
        (request) =>
          view === "browser" && !request.flags.browser
            ? { ok: false, code: "sandbox.no_browser", message: "The agent has no browser: turn browser access on first" }
            : null,
      );
      if (!ensured.ok) return ensured;
      if (view === "browser") return { ok: true, box: ensured.box, container: ensured.container, port: VIEW_PORTS.browser };
      try {
        // A box that dies meanwhile must not hold the view (and every call queued behind it).
        const deadline = AbortSignal.timeout(45_000);
        const started = await untilAborted(ensured.guest.exec({ command: "/usr/local/bin/agent-cli-start", timeoutMs: 30_000 }, deadline), deadline);
        const secret = cliSecret(started.output);
        if (started.exitCode !== 0 || !secret) throw new Error(`agent-cli-start exited with ${started.exitCode}`);
        return { ok: true, box: ensured.box, container: ensured.container, port: VIEW_PORTS.cli, pathPrefix: `/t/${secret}` };
      } catch (error) {
        const failure = asSandboxError(error);
        return { ok: false, code: failure.code, message: `The terminal could not start: ${failure.message}` };
      }
    });
  }

  /**
   * An operator's command in the box, as the run-changes diff needs it (REPO-024, SBX-039):
   * the box comes up exactly as for the CLI tab, with the idle timer started, from a
   * request the caller has read (it needs the secret values too, to redact).
   */
  forCommand(request: EnsureRequest): Promise<Woken> {
    return this.serial(() => this.wake(async () => ({ ok: true, request })));
  }

  /** SBX-030: operator input on a view restarts the idle timer, at most every 30 s. */
  async viewInput(): Promise<{ restarted: boolean; idle_deadline?: string }> {
    const restarted = await this.idle("view_input");
    const due = this.host.multiplexer.get(SANDBOX_IDLE)?.dueAt;
    return { restarted, ...(due ? { idle_deadline: new Date(due).toISOString() } : {}) };
  }

  /** Whether the agent's box runs now, as the object's record says. */
  running(): boolean {
    return this.record.get()?.running === true;
  }

  /** The running box's files (the scripts folder's sync), or null when none runs. */
  runningFiles(): SandboxFiles | null {
    const row = this.record.get();
    return row?.running ? guestFiles(this.lifecycle.guest(row)) : null;
  }

  /** The box's state for the console (no call to the box; one to R2 for the saved home). */
  async state(agentId: string | null): Promise<SandboxState> {
    const row = this.record.get();
    return describeState({
      row,
      starting: this.starting,
      idleDue: this.host.multiplexer.get(SANDBOX_IDLE)?.dueAt ?? null,
      off: this.host.env.SANDBOX_UNAVAILABLE_REASON,
      failure: this.record.failure(),
      saved: agentId ? await this.homes.head(agentId).catch(() => null) : null,
      failedSave: row?.running ? this.record.homeSaveFailure() : null,
    });
  }

  /**
   * The agent was deleted: its box and saved home go, without a save. A start under way
   * is waited for (it tears itself down), so no box, home or archive is left behind.
   */
  async forget(agentId: string): Promise<void> {
    this.forgotten = true;
    await this.serial(async () => {
      const row = this.record.get();
      if (row?.running) await this.lifecycle.retire(row, { save: false }).catch(() => {});
      await this.homes.remove(agentId).catch(() => {});
    });
  }

  /**
   * "Reset home": the way out of a home that cannot be saved or restored. The box is
   * destroyed without a save and the saved home deleted; the next box starts empty.
   * Refused while the agent generates (its box is in use).
   */
  resetHome(agentId: string): Promise<{ ok: true; destroyed: boolean } | Refusal> {
    return this.serial(async () => {
      if (this.host.generating()) return { ok: false, code: "agent.busy", message: "The agent is generating; cancel the generation before resetting its home" };
      const row = this.record.get();
      const destroyed = row?.running === true;
      if (row?.running) await this.lifecycle.retire(row, { save: false });
      await this.homes.remove(agentId);
      this.record.homeSaved();
      await this.host.multiplexer.clear(SANDBOX_IDLE);
      await this.host.multiplexer.clear(SANDBOX_HOME_SAVE);
      logEvent("info", { operation: "sandbox.home_reset", agent_id: agentId, destroyed });
      return { ok: true, destroyed };
    });
  }

  /**
   * The box's work is over (a task run ended): its archive is saved when asked and the box
   * answers, then the box is destroyed whether the save worked or not; the archive is a
   * cache, and a box must not outlive its run. Returns the saved bytes (null: none saved).
   */
  release(options: { save: boolean }): Promise<{ savedBytes: number | null }> {
    return this.serial(async () => {
      const row = this.record.get();
      if (!row) return { savedBytes: null };
      let savedBytes: number | null = null;
      try {
        if (!options.save) throw new Error("no save asked");
        savedBytes = (await this.lifecycle.retire(row, { save: true, capBytes: await this.workspace.homeCap(row.metadata.agent_id) })).savedBytes;
      } catch (error) {
        if (options.save) logEvent("warn", { operation: "sandbox.release_save", agent_id: row.metadata.agent_id, ...describeError(error) });
        await this.lifecycle.retire({ ...row, running: true }, { save: false }).catch((failure: unknown) => {
          logEvent("warn", { operation: "sandbox.release", agent_id: row.metadata.agent_id, ...describeError(failure) });
        });
      }
      await this.host.multiplexer.clear(SANDBOX_IDLE);
      await this.host.multiplexer.clear(SANDBOX_HOME_SAVE);
      return { savedBytes };
    });
  }

  /**
   * Brings the box up for the operator (SBX-023): a generating agent's running box is used
   * as is; otherwise the request is read, checked by `refuse`, ensured, and the idle timer
   * starts (SBX-028). Runs inside `serial`.
   */
  private async wake(request: () => Promise<RequestOutcome>, refuse?: (request: EnsureRequest) => Refusal | null): Promise<Woken> {
    const row = this.record.get();
    if (this.host.generating() && row?.running)
      return { ok: true, box: row.box, container: this.lifecycle.containerName(row), guest: this.lifecycle.guest(row) };
    const read = await request();
    if (!read.ok) return read;
    const refused = refuse?.(read.request);
    if (refused) return refused;
    this.starting = boxFor(read.request.flags);
    const cap = await this.workspace.homeCap(read.request.agentId);
    const ensured = await this.lifecycle.ensure(read.request, cap).finally(() => {
      this.starting = null;
    });
    if (!ensured.ok) return { ok: false, code: ensured.error.code, message: ensured.error.message };
    await this.idle("view_opened");
    return { ok: true, box: ensured.box, container: ensured.container, guest: ensured.guest };
  }

  private async idleFired(entry: Deadline): Promise<void> {
    const row = this.record.get();
    // A generation cancels the timer (SBX-029); one that fires anyway waits for its end.
    if (!row?.running || this.host.generating()) return;
    // A timer set again meanwhile (view input, a generation's end) decides instead.
    const current = this.host.multiplexer.get(SANDBOX_IDLE);
    if (current && current.version !== entry.version) return;
    await this.retireNow("idle");
  }

  private async periodicSave(): Promise<void> {
    const row = this.record.get();
    if (!row?.running) return;
    // Saving stops the browser: never under a generation, which may be using it.
    if (!this.host.generating()) {
      await this.lifecycle.saveHome(row, await this.workspace.homeCap(row.metadata.agent_id)).catch((error: unknown) => {
        logEvent("warn", { operation: "sandbox.home_save", agent_id: row.metadata.agent_id, ...describeError(error) });
      });
    }
    await this.host.multiplexer.set(SANDBOX_HOME_SAVE, this.host.now() + HOME_SAVE_EVERY_MS);
  }

  /**
   * Saves and destroys the box now, and clears its timers; true when it went. A box whose
   * home cannot be saved is kept (only a reset or a deleted agent destroys without a save):
   * the idle timer retries with the deadlines' backoff until a save succeeds, and the
   * sandbox state shows the failure meanwhile.
   */
  private async retireNow(reason: string): Promise<boolean> {
    const row = this.record.get();
    if (!row?.running) return true;
    const agentId = row.metadata.agent_id;
    logEvent("info", { operation: "sandbox.retire", agent_id: agentId, reason });
    try {
      await this.lifecycle.retire(row, { save: true, capBytes: await this.workspace.homeCap(agentId) });
    } catch (error) {
      const attempts = this.record.homeSaveFailure()?.attempts ?? 1;
      const retryAt = this.host.now() + retryDelay(attempts);
      logEvent("warn", {
        operation: "sandbox.home_save_failed",
        agent_id: agentId,
        reason,
        attempts,
        retry_at: new Date(retryAt).toISOString(),
        ...describeError(error),
      });
      await this.host.multiplexer.set(SANDBOX_IDLE, retryAt, attempts);
      return false;
    }
    await this.host.multiplexer.clear(SANDBOX_IDLE);
    await this.host.multiplexer.clear(SANDBOX_HOME_SAVE);
    return true;
  }

  /** Applies the idle rules to one event; true when the timer was (re)armed. */
  private async idle(event: IdleEvent): Promise<boolean> {
    const row = this.record.get();
    const pending = this.host.multiplexer.get(SANDBOX_IDLE);
    const now = this.host.now();
    const action = idleAction(
      event,
      { running: row?.running ?? false, generating: this.host.generating(), armedAt: row?.armedAt ?? null, dueAt: pending?.dueAt ?? null },
      now,
      idleMs(this.host.env.SANDBOX_IDLE_MS),
    );
    if (action.action === "cancel") {
      await this.host.multiplexer.clear(SANDBOX_IDLE);
      this.record.armed(null);
    }
    if (action.action !== "arm") return false;
    await this.host.multiplexer.set(SANDBOX_IDLE, action.dueAt);
    this.record.armed(now);
    if (!this.host.multiplexer.get(SANDBOX_HOME_SAVE)) await this.host.multiplexer.set(SANDBOX_HOME_SAVE, now + HOME_SAVE_EVERY_MS);
    return true;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
