/**
 * The organisation's task queue (addressed by the organisation id): on a wake or its alarm
 * it starts due tasks, oldest first, up to runs.maxConcurrent (TASK-006..008), and once an
 * hour it deletes stale task volumes (TASK-037). Which tasks start is core/tasks/outcome.ts
 * planStarts; this object only reads, claims and calls. Plans run one at a time, so two
 * wakes never both fill the same free slot.
 */
import type { Env } from "../../bindings/env";
import { refuse } from "../../bindings/outcome";
import { activeTaskIds, claimForRun, dueCandidates, staleVolumes, unclaim } from "../../core/db/task-queue";
import { organisationTaskSettings } from "../../core/db/task-settings";
import { logEvent } from "../../core/output/log";
import { platformRedactor } from "../../core/output/redaction";
import { volumeObjectKey } from "../../core/tasks/key";
import { nextDueAt, planStarts } from "../../core/tasks/outcome";
import { REFUSED_START_DELAY_MS, VOLUME_SWEEP_MS } from "../../core/tasks/transitions";
import { IdleConnection } from "../common/idle-connection";
import type { StartAnswer } from "./task-object";

/** How the queue asks a task to start a run: the task object over RPC; tests put a recorder in its place. */
export interface TaskStarter {
  start(taskId: string): Promise<StartAnswer>;
}

const ORGANISATION = "organisation";
/** When the next volume sweep is due (epoch ms). */
const SWEEP_AT = "sweep_at";
/** Volume expiries up to this time were swept (epoch ms). */
const SWEPT_UNTIL = "swept_until";
/** R2 deletes at most this many keys per call. */
const DELETE_BATCH = 1000;

/** What the queue's work reads of its object: the clock and the starter, which tests replace. */
export interface QueueHost {
  now(): number;
  readonly starter: TaskStarter;
}

/** The queue object's work, loaded by TaskQueueObject on its first event (queue-object.ts). */
export class TaskQueue {
  readonly #connection: IdleConnection;
  #turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    private readonly host: QueueHost,
  ) {
    this.#connection = new IdleConnection(env);
  }

  private now(): number {
    return this.host.now();
  }

  /** Something changed (a task filed, a message, a run ended, settings): plan now. */
  async wake(organisationId: string): Promise<void> {
    if ((await this.ctx.storage.get<string>(ORGANISATION)) !== organisationId) await this.ctx.storage.put(ORGANISATION, organisationId);
    await this.#serial(() => this.#plan(organisationId));
  }

  /** A task's resume time came, or the hourly sweep is due. */
  async alarm(): Promise<void> {
    const organisationId = await this.ctx.storage.get<string>(ORGANISATION);
    if (!organisationId) return;
    await this.#serial(async () => {
      const sweepAt = await this.ctx.storage.get<number>(SWEEP_AT);
      if (sweepAt !== undefined && sweepAt <= this.now()) await this.#sweepVolumes(organisationId);
      await this.#plan(organisationId);
    });
  }

  /** Runs `work` after every plan or sweep before it; a failed one does not stop the next. */
  #serial(work: () => Promise<void>): Promise<void> {
    const next = this.#turn.then(work, work);
    this.#turn = next.catch(() => {});
    return next;
  }

  async #plan(organisationId: string): Promise<void> {
    const now = this.now();
    const { settings, candidates, active } = await this.#connection.use(async (db) => {
      const [settings, candidates, active] = await Promise.all([
        organisationTaskSettings(db, organisationId),
        dueCandidates(db, organisationId),
        activeTaskIds(db, organisationId),
      ]);
      return { settings, candidates, active };
    });
    let next = nextDueAt(candidates, now);
    for (const taskId of planStarts(candidates, active, settings["runs.maxConcurrent"], now)) {
      const claimed = await this.#connection.use((db) => claimForRun(db, taskId, new Date(now)));
      if (!claimed) continue; // moved meanwhile (cancelled, started elsewhere)
      const answer = await this.host.starter.start(taskId).catch((error: unknown) => refuse(503, "task.start_failed", String(error)));
      if (answer.ok) continue;
      const resumeAt = now + REFUSED_START_DELAY_MS;
      await this.#connection.use((db) => unclaim(db, taskId, new Date(resumeAt)));
      next = next === null ? resumeAt : Math.min(next, resumeAt);
      logEvent(
        "warn",
        { operation: "task.start_refused", organisation_id: organisationId, task_id: taskId, code: answer.code, error: answer.message },
        platformRedactor(this.env),
      );
    }
    await this.#arm(next);
  }

  /** Deletes the volumes that expired since the last sweep (TASK-037), and books the next sweep. */
  async #sweepVolumes(organisationId: string): Promise<void> {
    const now = this.now();
    const since = (await this.ctx.storage.get<number>(SWEPT_UNTIL)) ?? 0;
    const stale = await this.#connection.use(async (db) =>
      staleVolumes(db, organisationId, await organisationTaskSettings(db, organisationId), new Date(since), new Date(now)),
    );
    const keys = stale.map((task) => volumeObjectKey(task.repositoryId, task.key));
    for (let i = 0; i < keys.length; i += DELETE_BATCH) await this.env.SANDBOX_HOMES.delete(keys.slice(i, i + DELETE_BATCH));
    if (keys.length) logEvent("info", { operation: "task.volumes_swept", organisation_id: organisationId, deleted: keys.length });
    await this.ctx.storage.put({ [SWEPT_UNTIL]: now, [SWEEP_AT]: now + VOLUME_SWEEP_MS });
  }

  /** The one alarm: the next resume time, or the next sweep, whichever is first. */
  async #arm(nextDue: number | null): Promise<void> {
    let sweepAt = await this.ctx.storage.get<number>(SWEEP_AT);
    if (sweepAt === undefined) {
      sweepAt = this.now() + VOLUME_SWEEP_MS;
      await this.ctx.storage.put(SWEEP_AT, sweepAt);
    }
    const at = nextDue === null ? sweepAt : Math.min(nextDue, sweepAt);
    if ((await this.ctx.storage.getAlarm()) !== at) await this.ctx.storage.setAlarm(at);
  }
}
