/**
 * Sending a task's agent a message (TASK-019), one way for every sender: a person through
 * `POST /api/tasks/:id/messages`, a review or comment on the task's pull request, its checks.
 * The message is stored first; then a waiting, blocked, in-review or closed task is queued
 * again (QUEUED_BY_MESSAGE) and the organisation's queue woken, or a running task's object is
 * told so its run takes the message at the next turn boundary. A queued or rate-limited task
 * is due already: its next run delivers the message, and it keeps its place in line. A task
 * its budget paused stays paused: the raise that queues it delivers the message (issue 33).
 */
import type { AnyDatabase } from "../core/db/client";
import { messageTarget } from "../core/db/task-attempts";
import { pausedByBudget } from "../core/db/task-budget";
import { findTask, insertTaskMessage, moveTask, type TaskMessageRow, type TaskRow } from "../core/db/task-rows";
import { logEvent } from "../core/output/log";
import { platformRedactor } from "../core/output/redaction";
import { QUEUED_BY_MESSAGE } from "../core/tasks/transitions";
import type { Env } from "./env";
import { taskObject, taskQueue } from "./objects";

/**
 * Tells the organisation's queue to plan now (a task became due). The task is stored by
 * then: a queue that cannot be reached is logged, not the caller's failure; its next wake
 * (another filing, a run's end) plans the task. `wait`: see `told`.
 */
export function wakeQueue(env: Env, organisationId: string, wait = true): Promise<void> {
  return told(
    taskQueue(env, organisationId).wake(organisationId),
    (error) => logEvent("warn", { operation: "task.queue_wake", organisation_id: organisationId, error }, platformRedactor(env)),
    wait,
  );
}

/**
 * A call that tells an object what is stored already (the queue's wake, a running task's
 * nudge). A request waits for its answer (`wait`: the task is planned or told when the answer
 * comes). A sender that is itself an object (the forge's inbox, acting on a pull request's
 * deliveries in order) does not wait: the call goes on in the object, and a queue whose plan
 * starts a box would hold the pull request's next deliveries back for seconds.
 */
async function told(call: Promise<void>, failed: (error: unknown) => void, wait: boolean): Promise<void> {
  const settled = call.catch(failed);
  if (wait) await settled;
}

/** Tells a running task's object a message came: its run takes it at the next turn boundary. */
function nudge(env: Env, taskId: string, wait: boolean): Promise<void> {
  return told(
    taskObject(env, taskId).messageQueued(taskId),
    (error) => logEvent("warn", { operation: "task.message_nudge", task_id: taskId, error }, platformRedactor(env)),
    wait,
  );
}

/**
 * Stores `content` for the task's agent and gets it delivered: queued again (and the queue
 * woken) from a status a message reopens, or the running task's object told.
 *
 * @example const message = await sendTaskMessage(env, db, task, "Also fix the lint");
 */
export async function sendTaskMessage(env: Env, db: AnyDatabase, given: TaskRow, content: string, wait = true): Promise<TaskMessageRow> {
  // Best of N: a parent's message goes to its winner, whose branch its pull request is.
  const task = (await messageTarget(db, given)) ?? given;
  const message = await insertTaskMessage(db, task.id, content);
  const from = (await pausedByBudget(db, task.id)) ? QUEUED_BY_MESSAGE.filter((s) => s !== "limit_reached") : QUEUED_BY_MESSAGE;
  const queued = await moveTask(db, task.id, from, "queued", { resumeAt: null, queuedAt: "now", closedAt: null });
  if (queued) {
    await wakeQueue(env, task.organisationId, wait);
  } else if ((await findTask(db, task.organisationId, task.id))?.status === "running") {
    await nudge(env, task.id, wait);
  }
  // Otherwise it is due already (queued, rate_limited): its next run delivers the message.
  return message;
}
