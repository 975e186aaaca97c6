/**
 * What a webhook delivery does to the organisation's tasks: an issue labelled or an @-mention
 * files a task (issue-tasks.ts), a review or comment on a task's pull request becomes a task
 * message and a merged pull request completes its task (pull-messages.ts), checks completing
 * reach the task (checks.ts). Called by the organisation's inbox (inbox.ts), one delivery at
 * a time per issue or pull request. Each result's detail says in a person's words what was
 * done ("filed APP-7 for Builder", "message to APP-7") or why nothing was ("@carol has read
 * access"). A GitHub or database failure throws: the inbox records the delivery as failed.
 */
import type { DeliveryResult, ForgeDelivery } from "../../core/github/webhook-event";
import type { ActDeps } from "./act-deps";
import { actOnChecks } from "./checks";
import { actOnIssue, actOnIssueComment } from "./issue-tasks";
import { actOnPullClosed, actOnPullComment, actOnReview, actOnReviewComment } from "./pull-messages";
import { NoGitHubApp } from "./sender-access";

export type { ActDeps } from "./act-deps";

function dispatch(deps: ActDeps, delivery: ForgeDelivery): Promise<DeliveryResult> | DeliveryResult {
  const { event } = delivery;
  switch (event.kind) {
    case "issue":
      return actOnIssue(deps, delivery, event);
    case "issue_comment":
      return event.pull ? actOnPullComment(deps, delivery, event) : actOnIssueComment(deps, delivery, event);
    case "review":
      return actOnReview(deps, delivery, event);
    case "review_comment":
      return actOnReviewComment(deps, delivery, event);
    case "pull_closed":
      return actOnPullClosed(deps, delivery, event);
    case "checks":
      return actOnChecks(deps, delivery);
  }
}

export async function actOnDelivery(deps: ActDeps, delivery: ForgeDelivery): Promise<DeliveryResult> {
  try {
    return await dispatch(deps, delivery);
  } catch (error) {
    // Nothing to ask GitHub with: the delivery cannot be acted on, and trying again will not help.
    if (error instanceof NoGitHubApp) return { outcome: "ignored", detail: error.message };
    throw error;
  }
}
