/**
 * Reviews reach the task (issue 33): a submitted review, a comment on a line of the diff or
 * in the conversation of a task's pull request, from a writer of the repository, becomes a
 * task message naming who said it and where. sendTaskMessage delivers it: a running task at
 * its next turn boundary, a waiting, in-review or closed one queued again (its next run on
 * the same branch pushes to the same pull request). A merged pull request completes its task.
 */
import { taskObject } from "../../bindings/objects";
import { closeParentOnForge } from "../../bindings/task-attempts";
import { sendTaskMessage } from "../../bindings/task-messages";
import { tasksForPull } from "../../core/db/forge-tasks";
import { moveTask } from "../../core/db/task-rows";
import type { DeliveryResult, ForgeDelivery, IssueCommentEvent, PullClosedEvent, ReviewCommentEvent, ReviewEvent } from "../../core/github/webhook-event";
import { conversationMessage, reviewCommentMessage, reviewMessage, reviewSaysSomething } from "../../core/tasks/forge-messages";
import { DONE_FROM } from "../../core/tasks/transitions";
import type { ActDeps } from "./act-deps";
import { senderRefusal } from "./sender-access";

const ignored = (detail: string): DeliveryResult => ({ outcome: "ignored", detail });
const noTask = (number: number) => ignored(`no task for pull request #${number}`);

/** The message to the task of the event's pull request, if its sender is a writer. */
async function toPullTasks(deps: ActDeps, delivery: ForgeDelivery, event: IssueCommentEvent | ReviewEvent | ReviewCommentEvent, content: string) {
  const tasks = await tasksForPull(deps.db, delivery.organisationId, event.repository, event.number);
  if (!tasks.length) return noTask(event.number);
  const refused = await senderRefusal(deps.env, event, deps.now());
  if (refused) return ignored(refused);
  for (const task of tasks) await sendTaskMessage(deps.env, deps.db, task, content, false);
  return { outcome: "accepted", detail: tasks.map((task) => `message to ${task.key}`).join("; ") } satisfies DeliveryResult;
}

/** A submitted review: its verdict and body; a bare "commented" review leaves its line comments to speak. */
export function actOnReview(deps: ActDeps, delivery: ForgeDelivery, event: ReviewEvent): Promise<DeliveryResult> | DeliveryResult {
  if (!reviewSaysSomething(event.state, event.body)) return ignored(`a review of pull request #${event.number} without a body or a verdict`);
  return toPullTasks(deps, delivery, event, reviewMessage({ login: event.sender.login, state: event.state, body: event.body, url: event.url }));
}

/** A comment on a line of the pull request's diff, with its file and line. */
export function actOnReviewComment(deps: ActDeps, delivery: ForgeDelivery, event: ReviewCommentEvent): Promise<DeliveryResult> {
  const content = reviewCommentMessage({ login: event.sender.login, path: event.path, line: event.line, body: event.body, url: event.url });
  return toPullTasks(deps, delivery, event, content);
}

/** A comment in the pull request's conversation. */
export function actOnPullComment(deps: ActDeps, delivery: ForgeDelivery, event: IssueCommentEvent): Promise<DeliveryResult> {
  return toPullTasks(deps, delivery, event, conversationMessage({ login: event.sender.login, on: "the pull request", body: event.body, url: event.url }));
}

/**
 * A task's pull request closed: merged, the task is completed and its active run stopped
 * (as a person's done does); closed unmerged, nothing happens (a person decides).
 */
export async function actOnPullClosed(deps: ActDeps, delivery: ForgeDelivery, event: PullClosedEvent): Promise<DeliveryResult> {
  const tasks = await tasksForPull(deps.db, delivery.organisationId, event.repository, event.number);
  if (!tasks.length) return noTask(event.number);
  const keys = tasks.map((task) => task.key).join(", ");
  if (!event.merged) return ignored(`pull request #${event.number} closed without merging; ${keys} left as it is`);
  const parts: string[] = [];
  let completed = 0;
  for (const task of tasks) {
    const moved = await moveTask(deps.db, task.id, DONE_FROM, "completed", { closedAt: "now", resumeAt: null });
    if (!moved) {
      parts.push(`${task.key} was completed already`);
      continue;
    }
    completed++;
    await taskObject(deps.env, task.id).stop(task.id);
    // Best of N: the winner completes with it, the other attempts' branches go.
    await closeParentOnForge(deps.env, deps.db, moved, (id) => taskObject(deps.env, id).stop(id));
    parts.push(`${task.key} completed: merged`);
  }
  return { outcome: completed ? "accepted" : "ignored", detail: parts.join("; ") };
}
