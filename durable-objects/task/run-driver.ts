/**
 * One task run from its start to its outcome (TASK-009..023): provisioning (the task's box
 * and its volume), preparing (the gateway credential, `guilds-code task-prepare`), turns
 * (each a generation of the agent's run rooms under the task's own lock), after each turn
 * the push and the draft pull request, between turns the queued messages or a wait, and at
 * the end the finalizing (finalize.ts). The rules of what a turn ends with are pure
 * (core/tasks/turn.ts); this class only sequences them.
 */
import { anthropicError } from "../../bindings/model-gateway";
import type { TaskForRun } from "../../core/db/task-run";
import { markConnected, setPullRequest, undeliveredMessages } from "../../core/db/task-run";
import { describeError, logEvent } from "../../core/output/log";
import { countRowTokens } from "../../core/projection/token-count";
import type { ChatPayload } from "../../core/projection/types";
import { TASK_BUDGET } from "../../core/tasks/budget";
import { CLAUDE_CODE_VERSION } from "../../core/tasks/harness";
import { taskBranch } from "../../core/tasks/key";
import type { TaskOutcome } from "../../core/tasks/outcome";
import { TASK_WORKSPACE } from "../../core/tasks/prompt";
import { draftPullRequestBody } from "../../core/tasks/pull-request-body";
import { type TurnEnding, turnEnding } from "../../core/tasks/turn";
import type { SandboxAccess } from "../../core/tools/types";
import { ensureRequestOf, openSecrets } from "../agent/generation/inputs";
import { tokenCounterReady } from "../agent/generation/token-ranks";
import { runTurn } from "../agent/run/turn";
import type { RunSession } from "../agent/state/run-session";
import { SEED_MAX_AGE_MS } from "../sandbox/seed";
import { TaskBoxCommands } from "./box-commands";
import type { GatewayTurn } from "./claude-code/gateway-turn";
import { type ClaudeCodeRun, claudeCodeHarness, type HarnessSession } from "./claude-code/harness";
import type { RepositoryTokens } from "./repository-tokens";
import { RunBudget } from "./run-budget";
import type { TaskRooms } from "./task-rooms";
import { deliverAsRow, TaskWait } from "./turn-boundary";

/** How long the box gets to come up with its volume before the run ends connect_timeout (TASK-029). */
export const CONNECT_TIMEOUT_MS = 5 * 60_000;

/** What ended the run, and what finalizing needs to know of it. */
export interface RunEnding {
  outcome: TaskOutcome;
  detail?: string;
  resetAt?: number | null;
  /** complete_task's summary (TASK-015). */
  summary?: string | null;
  /** The hand-off text the task's next run starts from (handed_off). */
  handoff?: string | null;
  /** The harness in the box and its session, for the run report (TASK-022, TASK-033). */
  harness?: HarnessSession & { kind: string; version: string };
}

export interface DriverDeps {
  rooms: TaskRooms;
  task: TaskForRun;
  taskRunId: string;
  session: RunSession;
  credential: string;
  tokens: RepositoryTokens;
  /** Set when the agent's task harness is Claude Code (decision 0032); the platform's own loop otherwise. */
  claudeCode?: Pick<ClaudeCodeRun, "settings" | "sessionId" | "resumePrompt" | "gatewayBase" | "timeoutMs"> | null;
  /** Writes the ending (finalize.ts); the driver calls it exactly once. */
  finalize(ending: RunEnding, box: TaskBoxCommands | null, refusals: Refusal[]): Promise<void>;
}

export interface Refusal {
  ref: string;
  reason: string;
  at: string;
}

export class TaskRunDriver {
  /** Set by stop() or the wall clock: the run ends with this outcome at the next chance. */
  private stopping: RunEnding | null = null;
  private readonly wait = new TaskWait();
  private commands: TaskBoxCommands | null = null;
  /** The box stopped answering: the run ends sandbox_lost. */
  private lost = false;
  /** Refusals the gateway reported that are not in the transcript yet. */
  private pendingRefusals: Refusal[] = [];
  private readonly refusals: Refusal[] = [];
  /** Settles when the run's ending is written. */
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private readonly harness: ReturnType<typeof claudeCodeHarness> | null = null;
  /** The model gateway's side of the harness turn in flight. */
  private serving: GatewayTurn | null = null;
  /** The task's budget, checked before each model call of either harness (issue 33). */
  private readonly budget: RunBudget;

  constructor(private readonly deps: DriverDeps) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.budget = new RunBudget(deps.task.id);
    if (deps.claudeCode) {
      const attachments = deps.rooms.context.env.ATTACHMENTS;
      this.harness = claudeCodeHarness({
        ...deps.claudeCode,
        credential: deps.credential,
        serving: (turn) => {
          this.serving = turn;
        },
        keepRequest: async (key, body) => {
          await attachments.put(key, body, { httpMetadata: { contentType: "application/json" } });
        },
      });
    }
  }

  /** A model call of the harness in the box, the credential already checked: the turn in flight answers it. */
  gateway(request: Request): Promise<Response> {
    if (!this.serving) return Promise.resolve(anthropicError(409, "invalid_request_error", "No turn of this task's run is in progress"));
    return this.serving.relay(request);
  }

  get runId(): string {
    return this.deps.session.runId;
  }

  get taskId(): string {
    return this.deps.task.id;
  }

  /** The keep-alive deadline fired: a waiting run ends (TASK-020). */
  keepAliveEnded(): void {
    this.wait.wake("timeout");
  }

  /** A message was queued: a waiting run takes it now (TASK-019). */
  messageQueued(): void {
    this.wait.wake("message");
  }

  /** Ends the run (a person stopped the task, or its wall clock ran out): the generation in flight is cancelled. */
  stop(outcome: TaskOutcome = "cancelled", detail?: string): void {
    this.stopping ??= { outcome, ...(detail ? { detail } : {}) };
    this.deps.rooms.context.lock.active?.controller.abort();
    this.wait.wake("stop");
  }

  /** A person changed the task's budget: the next model call is checked against it. */
  budgetChanged(limitUsd: number | null): void {
    this.budget.changed(limitUsd);
  }

  /** The gateway refused a push (TASK-014): shown in the transcript at the turn's end. */
  refused(refusal: Refusal): void {
    this.pendingRefusals.push(refusal);
    this.refusals.push(refusal);
  }

  /** Drives the run to its ending; never throws. */
  async drive(): Promise<void> {
    let ending: RunEnding;
    try {
      ending = await this.run();
    } catch (error) {
      logEvent("error", { operation: "task.run", task_id: this.taskId, run_id: this.runId, ...describeError(error) }, this.deps.rooms.context.log);
      ending = this.stopping ?? { outcome: "failed", detail: "task.platform_error" };
    }
    const harness = this.harness && this.deps.claudeCode ? { kind: "claude-code", version: CLAUDE_CODE_VERSION, ...this.harness.session() } : null;
    try {
      await this.deps.finalize({ ...(this.stopping ?? ending), ...(harness ? { harness } : {}) }, this.commands, this.refusals);
    } finally {
      this.resolveDone();
    }
  }

  private async run(): Promise<RunEnding> {
    const { context } = this.deps.rooms;
    await tokenCounterReady(context.env);
    // A task already at its budget ends at once, before a box or a model call (issue 33).
    if (await this.budget.refresh(context.database.db())) return { outcome: "limit_reached", detail: TASK_BUDGET };
    const access = await this.provision();
    if (!access.ok) return access.ending;
    const prepared = await this.prepare(access.access);
    if (prepared) return prepared;
    if (access.pristine) await this.refreshSeed();
    for (;;) {
      if (this.stopping) return this.stopping;
      const turn = await this.turn();
      await this.afterTurn(turn.question);
      if (this.lost) return this.stopping ?? { outcome: "sandbox_lost" };
      const ending = this.stopping ?? turn.ending;
      if (ending.outcome === "completed") return { outcome: "completed", summary: ending.detail ?? null };
      if (ending.outcome !== null) return ending as RunEnding;
      // Between turns: the queued messages, or a wait for one (TASK-019, TASK-020).
      const blocking = ending.blocking;
      for (;;) {
        if (this.stopping) return this.stopping;
        const delivered = await this.deliver();
        if (delivered) break;
        const woke = await this.wait.until(context.deadlines, context.now() + this.deps.task.settings["runs.keepAliveSeconds"] * 1000);
        if (woke === "timeout") return { outcome: blocking ? "blocked" : "end_turn" };
      }
    }
  }

  /** The box comes up with the task's volume (TASK-010); its failure or timeout ends the run. */
  private async provision(): Promise<{ ok: true; access: SandboxAccess; pristine: boolean } | { ok: false; ending: RunEnding }> {
    const { context } = this.deps.rooms;
    const db = context.database.db();
    const secrets = await openSecrets(db, context.env, this.deps.session);
    const values = secrets.ok ? secrets.values : [];
    const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), CONNECT_TIMEOUT_MS));
    const ensured = await Promise.race([context.box.generationStarting(ensureRequestOf(this.deps.session, values), db), timeout]);
    if (ensured === "timeout") return { ok: false, ending: { outcome: "connect_timeout" } };
    if (!ensured.ok) return { ok: false, ending: { outcome: "provisioning_failed", detail: ensured.code } };
    if (!ensured.up) return { ok: false, ending: { outcome: "provisioning_failed", detail: "sandbox.unavailable" } };
    return { ok: true, access: ensured.access, pristine: ensured.pristine };
  }

  /**
   * A pristine box, just prepared, nothing of the agent run in it yet: its volume may become
   * the repository's seed (decision 0037). Never fails the run: a seed is a head start only.
   */
  private async refreshSeed(): Promise<void> {
    const { task, rooms } = this.deps;
    const started = rooms.context.now();
    try {
      const refreshed = await rooms.context.box.refreshSeed(SEED_MAX_AGE_MS);
      logEvent(
        "info",
        { operation: "task.seed", task_id: task.id, run_id: this.runId, ...refreshed, duration_ms: rooms.context.now() - started },
        rooms.context.log,
      );
    } catch (error) {
      logEvent("warn", { operation: "task.seed", task_id: task.id, run_id: this.runId, ...describeError(error) }, rooms.context.log);
    }
  }

  /** The credential into the box's tokens file, then task-prepare (TASK-011); connected_at once it worked. */
  private async prepare(access: SandboxAccess): Promise<RunEnding | null> {
    const { task, rooms, taskRunId, credential } = this.deps;
    const commands = new TaskBoxCommands(access, {
      taskId: task.id,
      key: task.key,
      fullName: task.fullName,
      baseBranch: task.baseBranch,
      identity: task.identity,
      ...(rooms.context.env.GIT_GATEWAY_URL ? { gatewayBase: rooms.context.env.GIT_GATEWAY_URL } : {}),
    });
    this.commands = commands;
    const wallClock = task.settings["runs.wallClockSeconds"] * 1000;
    const began = rooms.context.now();
    await commands.writeCredential(credential, new Date(rooms.context.now() + wallClock + CONNECT_TIMEOUT_MS));
    const written = rooms.context.now();
    const prepared = await commands.prepare();
    const preparedAt = rooms.context.now();
    if (!prepared.ok) {
      logEvent("warn", { operation: "task.prepare", task_id: task.id, run_id: this.runId, error: prepared.message }, rooms.context.log);
      return { outcome: "provisioning_failed", detail: `task.prepare_failed: ${prepared.message.slice(0, 1_000)}` };
    }
    await markConnected(rooms.context.database.db(), taskRunId, new Date(rooms.context.now()));
    const timing = {
      credential_ms: written - began,
      prepare_ms: preparedAt - written,
      created: prepared.value.created,
      cloned: prepared.value.cloned ?? null,
      seeded: prepared.value.seeded ?? null,
      box: prepared.value.timings ?? null,
    };
    logEvent("info", { operation: "task.prepared", task_id: task.id, run_id: this.runId, ...timing }, rooms.context.log);
    return null;
  }

  /** One turn: a generation under the task's lock, with the task tools (TASK-012..016), through the one turn of every run. */
  private async turn(): Promise<{ ending: TurnEnding; question: { question: string; blocking: boolean } | null }> {
    const { rooms, session } = this.deps;
    const { context } = rooms;
    const claimed = await context.lock.claim(session.runId, session.facts.generation);
    if (!claimed.ok) throw new Error("the task's generation lock is held by another generation");
    await this.budget.refresh(context.database.db());
    let completed: string | null = null;
    let question: { question: string; blocking: boolean } | null = null;
    try {
      if (this.stopping) claimed.controller.abort();
      const turn = await runTurn(context, session, claimed, {
        ...(this.harness ? { harness: this.harness } : {}),
        prepare: (given) => {
          // Set on the generation's own inputs (not a copy): its redacted effects read them there.
          // The run's gateway credential is in the box's tokens file: it never reaches a row (SEC-018).
          given.redactor = given.redactor.withSecrets([{ name: "GATEWAY_CREDENTIAL", value: this.deps.credential }]);
          // The agent's commands start in the task's workspace.
          if (given.sandbox) given.sandbox = inWorkspace(given.sandbox);
          given.budget = this.budget.figures;
          given.task = {
            complete: (summary) => {
              completed = summary;
            },
            ask: (text, blocking) => {
              question = { question: text, blocking };
            },
          };
        },
      });
      return { ending: turnEnding({ turn, completed, question }), question };
    } finally {
      await context.lock.release(session.runId);
    }
  }

  /** After a turn: the question shown, the push, the draft pull request, refusals in the transcript. */
  private async afterTurn(question: { question: string; blocking: boolean } | null): Promise<void> {
    const { rooms, task } = this.deps;
    if (question)
      await this.commitRow("assistant", { role: "assistant", content: question.question }, { source: "task_question", blocking: question.blocking });
    let pushed: Awaited<ReturnType<TaskBoxCommands["push"]>> | null = null;
    try {
      pushed = this.commands ? await this.commands.push() : null;
    } catch (error) {
      // The box does not answer: it died under the turn (TASK-029).
      logEvent("warn", { operation: "task.push", task_id: task.id, run_id: this.runId, ...describeError(error) }, rooms.context.log);
      this.lost = true;
    }
    // An attempt of a best-of-N task opens none: its parent opens one from the winner (attempts.ts).
    if (pushed?.ok && pushed.value.ahead > 0 && task.pullRequestNumber === null && task.parentTaskId === null) {
      await this.openPullRequest().catch((error: unknown) =>
        logEvent("warn", { operation: "task.pull_request", task_id: task.id, ...describeError(error) }, rooms.context.log),
      );
    }
    // Refusals the gateway reported during the turn (and the push): rows the transcript shows (TASK-014).
    const refusals = this.pendingRefusals.splice(0);
    for (const r of refusals) {
      await this.commitRow(
        "user",
        { role: "user", content: `The git gateway refused a push to ${r.ref}: ${r.reason}` },
        { source: "git_refusal", ref: r.ref, reason: r.reason, at: r.at },
      );
    }
  }

  private async openPullRequest(): Promise<void> {
    const { task, rooms, tokens } = this.deps;
    const plugin = await tokens.forge(task);
    if (!plugin) return;
    const opened = await plugin.openDraftPR({
      fullName: task.fullName,
      head: taskBranch(task.key),
      base: task.baseBranch,
      title: `${task.key}: ${task.title}`,
      body: draftPullRequestBody(task),
    });
    await setPullRequest(rooms.context.database.db(), task.id, opened.number, opened.url);
    task.pullRequestNumber = opened.number;
    task.pullRequestUrl = opened.url;
    rooms.stream.pullRequest(task.id, { number: opened.number, url: opened.url });
  }

  /** Undelivered messages become the next turn's user row, delivered in the same statement (TASK-019). */
  private async deliver(): Promise<boolean> {
    const { rooms, session, task } = this.deps;
    const db = rooms.context.database.db();
    const queued = await undeliveredMessages(db, task.id);
    if (!queued.length) return false;
    await deliverAsRow(db, session, queued, new Date(rooms.context.now()));
    return true;
  }

  private commitRow(role: "user" | "assistant", payload: ChatPayload, metadata: Record<string, unknown>) {
    const { session, rooms } = this.deps;
    return session.commit(rooms.context.database.db(), {
      generation: session.facts.generation,
      role,
      payload: payload as never,
      metadata,
      tokenCount: countRowTokens(payload, metadata),
    });
  }
}

/** The box as a task run's tools use it: commands start in the task's workspace unless they say otherwise. */
function inWorkspace(access: SandboxAccess): SandboxAccess {
  return { ...access, exec: (input, signal) => access.exec(input.cwd === undefined ? { ...input, cwd: TASK_WORKSPACE } : input, signal) };
}
