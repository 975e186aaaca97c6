/**
 * The body of a task's draft pull request (TASK-018): the task's description and, for a
 * task filed from an issue, `Closes #<n>` so merging the pull request closes the issue.
 * Pure: no Workers API.
 */

/** What the body is made of. */
export interface PullRequestBodyInput {
  description: string;
  /** The issue the task was filed from; null for a task filed in the console. */
  issueNumber: number | null;
}

/**
 * @example draftPullRequestBody({ description: "Fix it", issueNumber: 12 }) // "Fix it\n\nCloses #12"
 * @example draftPullRequestBody({ description: "Fix it", issueNumber: null }) // "Fix it"
 */
export function draftPullRequestBody(task: PullRequestBodyInput): string {
  if (task.issueNumber === null) return task.description;
  return [task.description.trim(), `Closes #${task.issueNumber}`].filter(Boolean).join("\n\n");
}
