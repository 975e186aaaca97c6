/**
 * The first user row of a task run (TASK-009): the task, where its code goes, for a later
 * run the continuation summary of the earlier ones (TASK-033) or the hand-off of the run
 * before, and the messages the run starts because of (TASK-032).
 *
 * @example taskPrompt({ key: "WEB-1", title: "Fix login", description: "", baseBranch: "main", summary: null })
 */
import { taskBranch } from "./key";

export interface TaskPromptInput {
  key: string;
  title: string;
  description: string;
  baseBranch: string;
  /** The earlier runs' summary; null for the first run. */
  summary: string | null;
  /** The previous run's hand-off text, when it handed off as its context filled (the summary is then not given). */
  handoff?: string | null;
  /** Messages that came for the task since its last run, which this run starts because of (TASK-032). */
  messages?: readonly string[];
  /** The repository's folder in the box. */
  workspace?: string;
}

export const TASK_WORKSPACE = "/data/workspace";

export function taskPrompt(input: TaskPromptInput): string {
  const branch = taskBranch(input.key);
  const parts = [
    `Task ${input.key}: ${input.title}`,
    input.description.trim() ? input.description.trim() : "(no description)",
    [
      `The repository is checked out in ${input.workspace ?? TASK_WORKSPACE} on the branch ${branch}, made from ${input.baseBranch}.`,
      `Commit your work on ${branch}; the platform pushes it after each of your turns and opens a draft pull request against ${input.baseBranch}.`,
      "Call complete_task with a summary when the task is done. Call ask_question when you need an answer from a person (blocking: true when you cannot go on without it).",
    ].join("\n"),
  ];
  if (input.handoff) parts.push(`This task's previous run handed off when its context filled. Its notes for you:\n${input.handoff}`);
  else if (input.summary) parts.push(`This task ran before. What happened so far:\n${input.summary}`);
  if (input.messages?.length) parts.push(`Messages for you since then:\n\n${input.messages.join("\n\n")}`);
  return parts.join("\n\n");
}

/**
 * The first prompt of a run that resumes the harness session of the task's earlier run
 * (TASK-034): the session already holds the task and the work so far, so only what is new.
 *
 * @example resumePrompt(["Also update the README."]) // "A new run of this task starts …"
 */
export function resumePrompt(messages: readonly string[]): string {
  const opening = "A new run of this task starts, continuing your session. The workspace holds your work so far.";
  return messages.length ? `${opening}\n\nMessages for you since then:\n\n${messages.join("\n\n")}` : `${opening}\n\nGo on with the task.`;
}
