/**
 * Creating, reusing and retiring the agent's box (SBX-010..012, SBX-021, SBX-031,
 * SBX-036). The Container object only runs what it is told; every decision is taken
 * here, from the record in the agent object's storage.
 *
 * Order of a creation: start the container with the environment (secrets, HOME on
 * coding boxes, the guest token), wait for the guest, restore the saved home, then start
 * the desktop services, so nothing writes the home before it is back. A retirement saves
 * the home first, then destroys: the disk goes with the box.
 */
import type { Env } from "../../bindings/env";
import { untilAborted } from "../../core/async/until-aborted";
import { describeError, logEvent } from "../../core/output/log";
import { SandboxError } from "../../core/sandbox/errors";
import { type ArchiveArea, GuestClient } from "../../core/sandbox/guest-client";
import { type Box, type EnsureDecision, ensureDecision, type ImageReferences, sandboxEnvironment, wantedSandbox } from "../../core/sandbox/metadata";
import { bytesToMib } from "../../core/sandbox/workspace";
import type { SandboxHomes } from "./home";
import { homeSaveUrl } from "./home-on-exit";
import type { EnsureRequest } from "./inputs";
import type { SandboxRecord, SandboxRow } from "./record";
import { boxContainer, type GuestSettings, type LiteSandbox } from "./sandbox-container";
import { randomToken, warmPool, warmPoolTarget } from "./warm-pool";

/** What a claim gives a warm box (GuestClient.claim). */
type GuestClaim = { token: string; env: Record<string, string>; settings: GuestSettings };

/** A box just started or claimed: its Container object, its guest, and its name when it is not the holder's own. */
type StartedBox = { target: DurableObjectStub<LiteSandbox>; guest: GuestClient; name: string | null };

/** An ensured box: `container` is its Container object's name (the holder's own, or a warm box's). */
export type EnsureOutcome =
  | {
      ok: true;
      box: Box;
      container: string;
      guest: GuestClient;
      action: EnsureDecision["action"];
      ms: number;
      /** What a box started now took back: its own archive, its repository's seed, or nothing. Absent for a box reused. */
      restored?: "own" | "seed" | "none";
    }
  | { ok: false; error: SandboxError };

/** How long a started box gets for its guest to answer /health. */
const HEALTH_TIMEOUT_MS = 30_000;

/** How long the desktop and Chromium get to start (a loaded machine is slow at it). */
const SERVICES_TIMEOUT_MS = 180_000;

/** How long taking a home back may last: a minute, plus its size at 20 MB/s. */
const restoreDeadlineMs = (bytes: number) => 60_000 + Math.ceil(bytes / 20_000);

/**
 * The Container namespaces that could not construct an object in this isolate (containers
 * off): containers cannot come on in a running isolate, so they are not asked again. Keyed by
 * the namespace, not the isolate, so an environment with other namespaces is asked afresh.
 */
const engineless = new WeakSet<object>();

/** The message when this Worker runs without a container engine (containers off). */
export const NO_ENGINE = "Sandboxes are not available here: containers are disabled (no container engine)";

/**
 * Which box this is and what it keeps between boxes: an agent's box is named by the agent's
 * id and keeps /home/agent (saved by the box itself on exit too); a task's box is named
 * `task:<id>` and keeps /data, saved only by the platform when the run ends.
 */
export interface BoxIdentity {
  /** The Container's name (its idFromName). */
  name(agentId: string): string;
  /** The folder archived between boxes. */
  archive: ArchiveArea;
}

/** The agent's own box. */
export const AGENT_BOX: BoxIdentity = { name: (agentId) => agentId, archive: "home" };

export class SandboxLifecycle {
  constructor(
    private readonly env: Env,
    private readonly record: SandboxRecord,
    private readonly homes: SandboxHomes,
    private readonly now: () => number,
    /** True once the agent was deleted: a start under way tears itself down. */
    private readonly gone: () => boolean = () => false,
    private readonly identity: BoxIdentity = AGENT_BOX,
  ) {}

  /** The Container object of the box the record describes: a warm box keeps the pool's name. */
  container(row: Pick<SandboxRow, "box" | "container" | "metadata">): DurableObjectStub<LiteSandbox> {
    return boxContainer(this.env, row.box, this.containerName(row));
  }

  /** The name of the recorded box's Container object. */
  containerName(row: Pick<SandboxRow, "container" | "metadata">): string {
    return row.container ?? this.identity.name(row.metadata.agent_id);
  }

  /** The guest of the box the record describes. */
  guest(row: SandboxRow): GuestClient {
    return guestOf(this.container(row), row.token);
  }

  /** Reuses, creates or recreates the box for this request, its home under `capBytes`; never throws. */
  async ensure(request: EnsureRequest, capBytes: number): Promise<EnsureOutcome> {
    const started = this.now();
    try {
      return await this.ensureOrThrow(request, capBytes, started);
    } catch (error) {
      const failure = asSandboxError(error);
      if (failure.message === NO_ENGINE && this.env.SANDBOX_LITE) engineless.add(this.env.SANDBOX_LITE);
      this.record.failed(failure.code, failure.message, this.now());
      logEvent("warn", { operation: "sandbox.ensure", agent_id: request.agentId, code: failure.code, error: failure.message });
      return { ok: false, error: failure };
    }
  }

  private async ensureOrThrow(request: EnsureRequest, capBytes: number, started: number): Promise<EnsureOutcome> {
    // The local stack says why it runs without containers; and containers cannot come on
    // in a running isolate, so once seen off there is no need to ask again.
    const reason = this.env.SANDBOX_UNAVAILABLE_REASON;
    if (reason) throw new SandboxError("sandbox.unavailable", `Sandboxes are not available here: ${reason}`);
    if (this.env.SANDBOX_LITE && engineless.has(this.env.SANDBOX_LITE)) throw new SandboxError("sandbox.unavailable", NO_ENGINE);
    const { agentId } = request;
    const environment = sandboxEnvironment(request.secrets, request.flags.coding);
    const wanted = await wantedSandbox({
      agentId,
      flags: request.flags,
      browserLanguage: request.browserLanguage,
      environment,
      secretIds: request.secretIds,
      images: this.images(),
      fingerprintKey: this.env.SANDBOX_FINGERPRINT_KEY,
    });
    let row = this.record.get();
    // The box changed (SBX-012): the other class's container holds the home; retire it first.
    if (row?.running && row.box !== wanted.box) {
      await this.retireBeforeRecreate(row, capBytes, ["box"]);
      row = this.record.get();
    }
    // The box this agent holds now, under the pool's name or its own.
    const target = row && row.box === wanted.box ? this.container(row) : boxContainer(this.env, wanted.box, this.identity.name(agentId));
    const running = await target.isRunning();
    if (row?.running && !running) {
      // It stopped behind our back (a crash, the class's own sleep): its disk is gone.
      this.record.stopped();
      row = this.record.get();
    }
    // A box running without a record of ours (SBX-021) is recreated: its token is unknown.
    const known = row?.running && row.box === wanted.box ? row : null;
    const decision = ensureDecision(known?.metadata ?? null, running, wanted);
    if (decision.action === "reuse") {
      return { ok: true, box: wanted.box, container: this.containerName(known!), guest: this.guest(known!), action: "reuse", ms: this.now() - started };
    }
    if (decision.action === "recreate") {
      logEvent("info", { operation: "sandbox.recreate", agent_id: agentId, box: wanted.box, reasons: decision.reasons });
      if (known) await this.retireBeforeRecreate(known, capBytes, decision.reasons);
      else await target.destroyBox();
    }
    // A saved home the new box could not take back (the limit was lowered) is said before
    // any box starts; the old one, if any, has just saved a home within the cap.
    const saved = await this.homes.head(agentId);
    if (saved && saved.bytes > capBytes) {
      throw new SandboxError(
        "workspace.full",
        `The saved home holds ${bytesToMib(saved.bytes)} MiB, above its limit of ${bytesToMib(capBytes)} MiB: raise max_workspace_mib, or reset the home`,
      );
    }
    const token = randomToken();
    // A task's box saves nothing by itself: its volume is saved when its run ends.
    const homeSave: GuestSettings = this.identity.archive === "home" ? { GUEST_HOME_SAVE_URL: homeSaveUrl(agentId) } : {};
    const up =
      (await this.claimWarm(wanted.box, agentId, { token, env: environment, settings: homeSave })) ??
      (await this.startCold(wanted.box, agentId, environment, token, homeSave, wanted.env_fingerprint));
    const { guest, name: containerName } = up;
    const booted = this.now();
    let restoredBytes: number | null = null;
    let restored: "own" | "seed" | "none" = "none";
    let restoreMs = 0;
    try {
      const home = await this.homes.open(agentId, capBytes);
      // A box that dies while it takes its home back must fail the start, not hold it for as
      // long as a call to it may hang.
      const deadline = AbortSignal.timeout(restoreDeadlineMs(home?.size ?? 0));
      // Either way the guest learns the cap, and that its save on shutdown may now run.
      const area = this.identity.archive;
      restored = home ? (home.seed ? "seed" : "own") : "none";
      if (home) {
        try {
          await untilAborted(guest.putArchive(area, home.body, { length: home.size, maxBytes: capBytes, signal: deadline }), deadline);
        } catch (error) {
          // A seed is a head start, never a condition: a bad one leaves the volume empty (the
          // guest restores through a staging folder) and the box starts without it.
          if (!home.seed || deadline.aborted) throw error;
          logEvent("warn", { operation: "sandbox.seed_refused", agent_id: agentId, error: (error as Error).message });
          restored = "none";
        }
      } else await untilAborted(guest.archiveReady(area, capBytes), deadline);
      restoredBytes = restored === "none" ? null : home!.size;
      restoreMs = this.now() - booted;
      await untilAborted(this.startServices(guest, request), AbortSignal.timeout(SERVICES_TIMEOUT_MS));
    } catch (error) {
      // A box without its home must not live: its next save would replace the saved home.
      await up.target.destroyBox().catch(() => {});
      throw new SandboxError("sandbox.unavailable", `The sandbox started but its home could not be restored: ${(error as Error).message}`);
    }
    await this.abandonIfGone(up.target);
    this.record.created(wanted, token, containerName, this.now());
    const ms = this.now() - started;
    logEvent("info", {
      operation: "sandbox.ensure",
      agent_id: agentId,
      box: wanted.box,
      action: decision.action,
      duration_ms: ms,
      warm: containerName !== null,
      restored_bytes: restoredBytes,
      restored,
      restore_ms: restoreMs,
    });
    return { ok: true, box: wanted.box, container: containerName ?? this.identity.name(agentId), guest, action: decision.action, ms, restored };
  }

  /**
   * Saves the home (when asked and the box answers), then destroys the box. A save that
   * fails is recorded, throws and leaves the box up, so the caller can retry rather than
   * lose the home; only `save: false` (a deleted agent, a reset home) destroys without one.
   */
  async retire(row: SandboxRow, options: { save: true; capBytes: number } | { save: false }): Promise<{ savedBytes: number | null }> {
    const container = this.container(row);
    let savedBytes: number | null = null;
    const started = this.now();
    if (options.save && row.running && (await container.isRunning())) {
      savedBytes = await this.recorded(async () =>
        this.homes.save(
          row.metadata.agent_id,
          await this.guest(row).getArchive(this.identity.archive, { resumeBrowser: false, maxBytes: options.capBytes }),
          options.capBytes,
        ),
      );
    }
    const saveMs = this.now() - started;
    await container.destroyBox();
    this.record.stopped();
    logEvent("info", {
      operation: "sandbox.destroy",
      agent_id: row.metadata.agent_id,
      box: row.box,
      saved_bytes: savedBytes,
      save_ms: saveMs,
      duration_ms: this.now() - started,
    });
    return { savedBytes };
  }

  /** Saves the running box's home to R2 (the periodic save); a failure is recorded and thrown. */
  async saveHome(row: SandboxRow, capBytes: number): Promise<number> {
    return this.recorded(async () =>
      this.homes.save(row.metadata.agent_id, await this.guest(row).getArchive(this.identity.archive, { resumeBrowser: true, maxBytes: capBytes }), capBytes),
    );
  }

  /** A save whose outcome the sandbox state shows: a failure until the next success. */
  private async recorded(save: () => Promise<number>): Promise<number> {
    try {
      const bytes = await save();
      this.record.homeSaved();
      return bytes;
    } catch (error) {
      // A broken stream or a storage error is no SandboxError: say what was being done.
      const failure =
        error instanceof SandboxError
          ? error
          : new SandboxError("sandbox.unavailable", `The home could not be read from the box or written to storage: ${describeError(error).message}`);
      this.record.homeSaveFailed(failure.code, failure.message, this.now());
      throw failure;
    }
  }

  /** The box must go for a new one; if its home cannot be saved it stays, and the ensure says why. */
  private async retireBeforeRecreate(row: SandboxRow, capBytes: number, reasons: readonly string[]): Promise<void> {
    try {
      await this.retire(row, { save: true, capBytes });
    } catch (error) {
      const cause = asSandboxError(error);
      throw new SandboxError(
        "sandbox.home_save_failed",
        `The box must be recreated (${reasons.join(", ")}) but its home could not be saved, so it was kept as it is (${cause.code}): ${cause.message}`,
      );
    }
  }

  /**
   * A box from the warm pool, claimed for this holder and given its token, environment and
   * home-save address; null when the pool is off or empty (the pool refills either way). A
   * warm box that stopped, or that someone else claimed first, is dropped for the next.
   */
  private async claimWarm(box: Box, agentId: string, claim: GuestClaim): Promise<StartedBox | null> {
    if (warmPoolTarget(this.env, box) === 0) return null;
    const holder = this.identity.name(agentId);
    for (let attempt = 0; attempt < 3; attempt++) {
      const warm = await warmPool(this.env, box).take(box);
      if (!warm) return null;
      const target = boxContainer(this.env, box, warm.name);
      try {
        if (!(await target.isRunning()) || !(await target.claim(holder))) throw new Error("stopped or claimed already");
        await this.abandonIfGone(target);
        await guestOf(target, warm.token).claim(claim);
        return { target, guest: guestOf(target, claim.token), name: warm.name };
      } catch (error) {
        if (error instanceof SandboxError && error.code === "agent.not_found") throw error;
        logEvent("warn", { operation: "sandbox.warm_claim", agent_id: agentId, box, error: describeError(error).message });
        await target.destroyBox().catch(() => {});
      }
    }
    return null;
  }

  /** A box started now under its holder's own name, with the environment and the guest's settings. */
  private async startCold(
    box: Box,
    agentId: string,
    environment: Record<string, string>,
    token: string,
    settings: GuestSettings,
    fingerprint: string,
  ): Promise<StartedBox> {
    const target = boxContainer(this.env, box, this.identity.name(agentId));
    await this.abandonIfGone(target);
    // The guest's settings travel apart from the environment, so no secret can stand in for them.
    await target.boot(environment, { GUEST_TOKEN: token, ...settings }, { "guilds-agent": agentId, "guilds-env": fingerprint });
    const guest = guestOf(target, token);
    await this.waitHealthy(guest);
    await this.abandonIfGone(target);
    return { target, guest, name: null };
  }

  /** The agent was deleted while its box started: the box goes, and nothing of it is recorded. */
  private async abandonIfGone(target: DurableObjectStub<LiteSandbox>): Promise<void> {
    if (!this.gone()) return;
    await target.destroyBox().catch(() => {});
    throw new SandboxError("agent.not_found", "The agent was deleted while its box started");
  }

  /** The box's services after the restore: the desktop and Chromium when browser is on. */
  private async startServices(guest: GuestClient, request: EnsureRequest): Promise<void> {
    try {
      await guest.startServices(request.flags.browser, request.browserLanguage);
    } catch (error) {
      // A box without a browser needs no services: an image without the route still serves.
      if (request.flags.browser) throw error;
      logEvent("warn", { operation: "sandbox.services", agent_id: request.agentId, ...describeError(error) });
    }
  }

  private async waitHealthy(guest: GuestClient): Promise<void> {
    // One deadline for every check, a check that hangs included.
    const deadline = AbortSignal.timeout(HEALTH_TIMEOUT_MS);
    while (!(await untilAborted(guest.health(), deadline).catch(() => false))) {
      if (deadline.aborted) throw new SandboxError("sandbox.unavailable", `The sandbox's guest did not answer within ${HEALTH_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** SBX-011: the references the boxes' images are known by; the config's Dockerfile paths stand in. */
  private images(): ImageReferences {
    return {
      lite: this.env.SANDBOX_IMAGE_LITE ?? "containers/lite/Dockerfile",
      standard: this.env.SANDBOX_IMAGE ?? "containers/standard/Dockerfile",
    };
  }
}

/**
 * Any failure of the container runtime as the code tools and the API show. Without an
 * engine the Container object cannot even be constructed: its message says so.
 */
export function asSandboxError(error: unknown): SandboxError {
  if (error instanceof SandboxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/containers have not been enabled/i.test(message)) return new SandboxError("sandbox.unavailable", NO_ENGINE);
  return new SandboxError("sandbox.unavailable", `The sandbox could not be started: ${message.slice(0, 300)}`);
}

/** The guest of a Container object, reached with this token. */
function guestOf(target: DurableObjectStub<LiteSandbox>, token: string): GuestClient {
  return new GuestClient({ fetch: (url, init) => target.fetch(new Request(url, init)), token });
}
