/**
 * One task's Durable Object (addressed by the task id): the single writer of its runs. It
 * starts a run when the organisation's queue says so, drives it (provisioning, preparing,
 * turns, waiting, finalizing), answers the git gateway for the run's credential, and
 * streams the task's events. A run it lost (evicted, crashed) is finalized as sandbox_lost
 * at its next alarm or call (TASK-029).
 */
import { sql } from "drizzle-orm";
import type { Env } from "../../bindings/env";
import { anthropicError, GATEWAY_TASK_HEADER, harnessCredential, MODEL_GATEWAY_PATH } from "../../bindings/model-gateway";
import { type Outcome, refuse } from "../../bindings/outcome";
import type { GitAuthorization, GitRefusalEvent } from "../../bindings/task-gateway";
import { readOpeningState } from "../../core/db/agent-state";
import { activeTaskRun, earlierTaskRows, readTaskForRun, type TaskForRun, taskRunClaim, taskStatus } from "../../core/db/task-run";
import { markDelivered, readTaskRunStart } from "../../core/db/task-run-start";
import type { TaskEventData } from "../../core/events/streams";
import { describeError, logEvent } from "../../core/output/log";
import { nextLink } from "../../core/runs/chain";
import { modelGatewayBase, newCredential } from "../../core/tasks/credential";
import { taskHarness } from "../../core/tasks/harness";
import type { TaskStatus } from "../../core/tasks/outcome";
import { resumePrompt, taskPrompt } from "../../core/tasks/prompt";
import { continuationSummary } from "../../core/tasks/summary";
import { tokenCounterReady } from "../agent/generation/token-ranks";
import { writeOpening } from "../agent/run/opening";
import { HEARTBEAT } from "../agent/state/generation-lock";
import type { DeadlineHandler } from "../common/deadlines";
import { serveRunEvents } from "../common/sse-hub";
import { finalizeRun } from "./finalize";
import { RepositoryTokens } from "./repository-tokens";
import { TaskRunDriver } from "./run-driver";
import { runOrdinal } from "./stream";
/** What the queue hears when it asks a task to start a run. */
export type StartAnswer = Outcome<{ runId: string }>;

import { openTaskRooms, type TaskRooms, taskVolumeKey, taskVolumeKeys } from "./task-rooms";
import { KEEP_ALIVE } from "./turn-boundary";

/** The run's own heartbeat: keeps a waiting run's object awake, checks its wall clock, finds a lost run. */
export const TASK_HEARTBEAT = "task.heartbeat";
const TASK_HEARTBEAT_MS = 20_000;

const runActive = () => refuse(409, "task.run_active", "The task has an active run");
/** How long a call waits for a finished run's driver to let go before it answers 409. */
const WIND_DOWN_MS = 10_000;

/**
 * The task object's work, loaded by TaskObject on its first event (task-object.ts), so an
 * isolate that starts only to serve the API never evaluates the run loop.
 */
export class TaskControl {
  readonly #rooms: TaskRooms;
  readonly #tokens: RepositoryTokens;
  #driver: TaskRunDriver | null = null;
  /** Settles when the driver lets go of its run (after the run's ending is written). */
  #driverDone: Promise<void> = Promise.resolve();
  /** The driver once its run is ending: finalizing, then letting go. */
  #ending: TaskRunDriver | null = null;
  #recovering: Promise<void> | null = null;
  readonly #handlers: Record<string, DeadlineHandler>;

  constructor(
    ctx: DurableObjectState,
    private readonly env: Env,
    /** The object's clock and randomness, which tests replace. */
    private readonly clock: { now(): number; random(): number },
  ) {
    this.#rooms = openTaskRooms(ctx, env, clock, () => this.#driver !== null);
    this.#tokens = new RepositoryTokens(env, () => this.clock.now());
    this.#handlers = {
      probe: () => {},
      // The task's generation lock renews its lease; a lock the object lost means a lost run.
      [HEARTBEAT]: async () => {
        if ((await this.#rooms.context.lock.beat()) === "orphaned") await this.#recover();
      },
      [TASK_HEARTBEAT]: () => this.#heartbeat(),
      [KEEP_ALIVE]: async () => {
        if (this.#driver) this.#driver.keepAliveEnded();
        else await this.#recover();
      },
    };
  }

  /** The rooms, for tests that reach inside through `runInDurableObject`. */
  get rooms(): TaskRooms {
    return this.#rooms;
  }

  /** The run this instance drives, for tests. */
  get driver(): TaskRunDriver | null {
    return this.#driver;
  }

  /** The object's one alarm: runs whatever deadlines are due and re-arms at the next. */
  async alarm(): Promise<void> {
    await this.#rooms.context.deadlines.fire(this.clock.now(), this.#handlers);
  }

  /**
   * `GET /runs/:id/events?after=N`: a task run's own SSE stream, forwarded by the Worker as the
   * agent's object forwards its runs': the rows this object commits are published here.
   */
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname.startsWith(MODEL_GATEWAY_PATH)) return this.#modelCall(request);
    const { hub, lock } = this.#rooms.context;
    return serveRunEvents(request, hub, (runId) => lock.held()?.runId === runId);
  }

  /** Starts a run of the task, which the queue has marked running; refused when one is active (TASK-008). */
  async start(taskId: string): Promise<StartAnswer> {
    await this.#recover();
    if (await this.#runActive()) return runActive();
    const { context } = this.#rooms;
    await tokenCounterReady(context.env);
    return context.database.use(async (db) => {
      const task = await readTaskForRun(db, taskId);
      if (!task) return refuse(404, "task.not_found", "No such task");
      const now = new Date(this.clock.now());
      const agent = await readOpeningState(db, task.agentId, now);
      if (!agent || agent.agent.archivedAt) return refuse(409, "task.agent_unavailable", "The task's agent is archived or gone");
      const runId = crypto.randomUUID();
      const taskRunId = crypto.randomUUID();
      const { last, queued, harnessSession } = await readTaskRunStart(db, taskId);
      // TASK-033: a run after a hand-off goes on from its notes, as a continuation in the chain
      // (CHAIN-009, so the chain's length stays bounded); any other later run from a summary.
      const handoff = last?.outcome === "handed_off" && typeof last.report.handoff === "string" ? last.report.handoff : null;
      const earlier = handoff || !last ? [] : await earlierTaskRows(db, taskId, runId);
      const summary = earlier.length ? continuationSummary({ title: task.title, description: task.description, rows: earlier }) : null;
      // TASK-032: the messages this run starts because of are in its first prompt, delivered with it.
      const messageIds = queued.map((m) => m.id);
      const messages = queued.map((m) => m.content);
      const prompt = taskPrompt({ key: task.key, title: task.title, description: task.description, baseBranch: task.baseBranch, summary, handoff, messages });
      const opened = await writeOpening(db, agent, runId, now, {
        kind: "task",
        run: {
          title: `${task.key}: ${task.title}`,
          metadata: { task_id: task.id, task_run_id: taskRunId, ...(handoff && last ? { chain: nextLink(last.runId, last.metadata) } : {}) },
        },
        wake: { role: "user", content: prompt },
        wakeMetadata: { source: "task_prompt", ...(messageIds.length ? { message_ids: messageIds } : {}) },
        claim: taskRunClaim(task.id, taskRunId, runId),
        ...(messageIds.length
          ? {
              writes: markDelivered(runId, messageIds, now, sql`exists (select 1 from r)`),
            }
          : {}),
      });
      // The one-active index refused the task run: nothing of the run was written.
      if (!opened) return runActive();
      Object.assign(this.#rooms.volume, taskVolumeKeys(task));
      context.sessions.add(opened.session);
      const credential = newCredential();
      this.#rooms.state.begin({ taskRunId, runId, taskId: task.id, credential, startedAt: now.getTime() });
      const ordinal = await runOrdinal(db, task.id, runId).catch(() => 1);
      this.#rooms.stream.runStarted(task.id, runId, ordinal);
      this.#rooms.stream.status(task.id, "running");
      const harness = opened.session.snapshot.harness;
      const driver: TaskRunDriver = new TaskRunDriver({
        rooms: this.#rooms,
        task,
        taskRunId,
        session: opened.session,
        credential,
        tokens: this.#tokens,
        // TASK-034: Claude Code resumes the session the task's runs last reported.
        claudeCode:
          harness?.kind === "claude-code"
            ? {
                settings: taskHarness({ ...harness.settings, kind: "claude-code" }),
                sessionId: harnessSession ?? crypto.randomUUID(),
                resumePrompt: harnessSession ? resumePrompt(messages) : null,
                gatewayBase: modelGatewayBase(task.id, this.env.MODEL_GATEWAY_URL || undefined),
                timeoutMs: task.settings["runs.wallClockSeconds"] * 1000,
              }
            : null,
        finalize: (ending, box, refusals) => {
          this.#ending = driver;
          return finalizeRun({ rooms: this.#rooms, task, taskRunId, runId, ending, box, refusals, tokens: this.#tokens });
        },
      });
      this.#driver = driver;
      await context.deadlines.set(TASK_HEARTBEAT, this.clock.now() + TASK_HEARTBEAT_MS);
      logEvent("info", { operation: "task.run_started", task_id: task.id, run_id: runId, task_run_id: taskRunId });
      this.#driverDone = driver.drive().finally(() => {
        if (this.#driver === driver) this.#driver = null;
      });
      context.waitUntil(this.#driverDone);
      return { ok: true, runId };
    });
  }

  /** A message was queued for the task: a waiting run takes it at its next turn boundary (TASK-019). */
  async messageQueued(taskId: string): Promise<void> {
    await this.#recover();
    if (this.#driver?.taskId === taskId) this.#driver.messageQueued();
  }

  /** The task's checks were read again (ISSUE-33): its page hears them, and its status when that moved. */
  checksRead(taskId: string, checks: TaskEventData["task.checks"], status: TaskStatus | null): void {
    this.#rooms.stream.checks(taskId, checks);
    if (status) this.#rooms.stream.status(taskId, status);
  }

  /** A person changed the task's budget (issue 33): the active run checks its next model call against it. */
  async budgetChanged(taskId: string, limitUsd: number | null): Promise<void> {
    if (this.#driver?.taskId === taskId) this.#driver.budgetChanged(limitUsd);
  }

  /** A person cancelled the task or marked it done: the active run ends with outcome cancelled (TASK-030). */
  async stop(taskId: string): Promise<void> {
    await this.#recover();
    if (this.#driver?.taskId === taskId) this.#driver.stop("cancelled");
  }

  /** Deletes the task's volume now (TASK-038); refused while a run is active. */
  async resetWorkspace(taskId: string): Promise<Outcome<Record<never, never>>> {
    await this.#recover();
    if (await this.#runActive()) return runActive();
    return this.#rooms.context.database.use(async (db) => {
      const task = await readTaskForRun(db, taskId);
      if (!task) return refuse(404, "task.not_found", "No such task");
      if (await activeTaskRun(db, taskId)) return runActive();
      await this.env.SANDBOX_HOMES.delete(taskVolumeKey(task));
      logEvent("info", { operation: "task.volume_reset", task_id: taskId });
      return { ok: true };
    });
  }

  /**
   * Whether a run holds the task. A run that is ending (finalizing, or letting go of the box
   * and the lock once its ending is written) is waited for, at most WIND_DOWN_MS: the caller
   * may already have seen the ending (a cancel answered, the run's outcome read) and would
   * otherwise get a 409 for a run that is over.
   */
  async #runActive(): Promise<boolean> {
    const held = () => this.#driver !== null || this.#rooms.state.get() !== null;
    const driver = this.#driver;
    if (!driver || (this.#ending !== driver && this.#rooms.state.get())) return held();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, WIND_DOWN_MS);
    });
    await Promise.race([this.#driverDone, late]).finally(() => timer !== undefined && clearTimeout(timer));
    return held();
  }

  /** The task's Server-Sent Events: status changes, runs starting and ending, and the latest run's rows. */
  async events(taskId: string, request: Request): Promise<Response> {
    await this.#recover();
    const status = await this.#rooms.context.database.use((db) => taskStatus(db, taskId));
    const after = Number(request.headers.get("last-event-id") ?? Number.NaN);
    // The run in flight: its state goes when its ending is written, before the driver lets go.
    const inFlight = this.#rooms.state.get();
    const runId = inFlight?.taskId === taskId ? inFlight.runId : null;
    return this.#rooms.stream.subscribe(taskId, Number.isSafeInteger(after) ? after : -1, { status, run_id: runId });
  }

  /**
   * The git gateway asks whether `credential` is the task's active run's (TASK-011): what it
   * needs to forward, or null (a wrong credential, or no run in flight: a finished run's
   * credential is dead).
   */
  async authorizeGit(taskId: string, credential: string): Promise<GitAuthorization | null> {
    await this.#recover();
    if (!this.#driver || !this.#rooms.state.authorizes(taskId, credential)) return null;
    const task: TaskForRun | null = await this.#rooms.context.database.use((db) => readTaskForRun(db, taskId));
    if (!task) return null;
    const token = await this.#tokens.token(task).catch((error: unknown) => {
      logEvent("warn", { operation: "task.git_token", task_id: taskId, ...describeError(error) });
      return null;
    });
    return { fullName: task.fullName, baseBranch: task.baseBranch, taskKey: task.key, allowForcePush: task.allowForcePush, token: token ?? "" };
  }

  /**
   * A model call of the task's harness (decision 0032), forwarded by the model gateway's doors
   * (bindings/model-gateway.ts): only the run in flight's credential gets through, and only
   * while one of its turns runs; the answer is the provider's, through the driver.
   */
  async #modelCall(request: Request): Promise<Response> {
    await this.#recover();
    const taskId = request.headers.get(GATEWAY_TASK_HEADER) ?? "";
    const presented = harnessCredential(request.headers);
    if (!this.#driver || this.#driver.taskId !== taskId || !presented || !this.#rooms.state.authorizes(taskId, presented)) {
      return anthropicError(401, "authentication_error", "The credential is not the task's run in flight");
    }
    return this.#driver.gateway(request);
  }

  /** The gateway refused a push of the task's run (TASK-014): the transcript shows it after the turn. */
  async gitRefused(taskId: string, event: GitRefusalEvent): Promise<void> {
    if (this.#driver?.taskId !== taskId) return;
    const at = new Date(this.clock.now()).toISOString();
    for (const { ref, reason } of event.refs) this.#driver.refused({ ref: String(ref), reason: String(reason), at });
  }

  /** Every 20 s of a run: the wall clock (OP-TASK-7), and a run this instance lost. */
  async #heartbeat(): Promise<void> {
    const inFlight = this.#rooms.state.get();
    if (!inFlight) return;
    const driver = this.#driver;
    if (!driver) {
      await this.#recover();
      return;
    }
    const wallClockMs = (await this.#wallClockSeconds()) * 1000;
    if (this.clock.now() - inFlight.startedAt > wallClockMs) driver.stop("cancelled", "runs.wallClockSeconds");
    await this.#rooms.context.deadlines.set(TASK_HEARTBEAT, this.clock.now() + TASK_HEARTBEAT_MS);
  }

  async #wallClockSeconds(): Promise<number> {
    const inFlight = this.#rooms.state.get();
    if (!inFlight) return Number.POSITIVE_INFINITY;
    const task = await this.#rooms.context.database.use((db) => readTaskForRun(db, inFlight.taskId));
    return task?.settings["runs.wallClockSeconds"] ?? Number.POSITIVE_INFINITY;
  }

  /**
   * A run in flight that no driver of this instance runs was lost with an earlier instance:
   * it ends sandbox_lost (retried as TASK-029 says), its box destroyed without a save.
   */
  async #recover(): Promise<void> {
    const inFlight = this.#rooms.state.get();
    if (!inFlight || this.#driver) return;
    this.#recovering ??= this.#finalizeLost(inFlight).finally(() => {
      this.#recovering = null;
    });
    await this.#recovering;
  }

  async #finalizeLost(inFlight: NonNullable<ReturnType<TaskRooms["state"]["get"]>>): Promise<void> {
    const { context } = this.#rooms;
    await context.lock.release(inFlight.runId);
    const task = await context.database.use((db) => readTaskForRun(db, inFlight.taskId));
    if (!task) {
      this.#rooms.state.end(inFlight.taskRunId);
      return;
    }
    Object.assign(this.#rooms.volume, taskVolumeKeys(task));
    logEvent("warn", { operation: "task.run_lost", task_id: task.id, run_id: inFlight.runId });
    await context.database.use(() =>
      finalizeRun({
        rooms: this.#rooms,
        task,
        taskRunId: inFlight.taskRunId,
        runId: inFlight.runId,
        ending: { outcome: "sandbox_lost", detail: "task.object_restarted" },
        box: null,
        refusals: [],
        tokens: this.#tokens,
      }),
    );
    await context.deadlines.clear(TASK_HEARTBEAT);
  }
}
