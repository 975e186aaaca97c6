/**
 * A task filed from a GitHub issue (issue 33): whether an issue event carries the
 * repository's trigger label, the task's title and description from the issue, and the
 * comment the platform leaves on the issue with the task's link. Pure: no Workers API.
 */

/** What `POST /api/guilds/:id/tasks` accepts (TaskCreate): a task filed from an issue keeps within it. */
export const TASK_TITLE_MAX = 200;
export const TASK_DESCRIPTION_MAX = 20_000;

/** The part of an `issues` event the trigger reads. */
export interface LabelledIssue {
  action: string;
  /** The label just added (`labeled`). */
  label: string | null;
  /** Every label the issue carries now. */
  labels: readonly string[];
}

/** GitHub compares label names without regard to case: `Agent` is the label `agent`. */
const sameLabel = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Whether the event files a task: an issue opened with the trigger label, or the trigger
 * label just added. Another label added to an issue that has it already files nothing new.
 *
 * @example triggers({ action: "labeled", label: "Agent", labels: ["Agent"] }, "agent") // true
 * @example triggers({ action: "labeled", label: "bug", labels: ["agent", "bug"] }, "agent") // false
 */
export function triggers(issue: LabelledIssue, triggerLabel: string): boolean {
  if (issue.action === "opened") return issue.labels.some((label) => sameLabel(label, triggerLabel));
  if (issue.action === "labeled") return issue.label !== null && sameLabel(issue.label, triggerLabel);
  return false;
}

/** `text` cut to `max` characters, its end marked when cut. */
function cut(text: string, max: number, mark: string): string {
  return text.length <= max ? text : text.slice(0, max - mark.length) + mark;
}

/**
 * The task's title: the issue's on one line, within the API's limit; `Issue #<n>` for an
 * issue whose title is blank.
 *
 * @example issueTaskTitle("  Fix\nthe build ", 12) // "Fix the build"
 */
export function issueTaskTitle(title: string, number: number): string {
  const line = title.replace(/\s+/g, " ").trim();
  return line ? cut(line, TASK_TITLE_MAX, "…") : `Issue #${number}`;
}

/**
 * The task's description: the issue's body, then a line naming the issue. A body too long
 * for a task's description is cut, and says so.
 *
 * @example issueTaskDescription("It fails", "https://github.com/acme/app/issues/12") // "It fails\n\nIssue: https://github.com/acme/app/issues/12"
 */
export function issueTaskDescription(body: string, url: string): string {
  const link = `Issue: ${url}`;
  const text = body.trim();
  if (!text) return link;
  const room = TASK_DESCRIPTION_MAX - link.length - 2;
  return `${cut(text, room, "\n\n… (the issue's body is cut here)")}\n\n${link}`;
}

/** A task the platform filed for an issue, as its comment on the issue names it. */
export interface FiledForIssue {
  agentName: string;
  key: string;
  /** The task's page in the console. */
  link: string;
}

/**
 * The console's page of a task: `/tasks/<id>` under the platform's origin.
 *
 * @example taskPageUrl("https://guilds.example", "5f0c…") // "https://guilds.example/tasks/5f0c…"
 */
export const taskPageUrl = (origin: string, taskId: string) => `${origin.replace(/\/+$/, "")}/tasks/${taskId}`;

/**
 * The platform's comment on the issue: one line per task filed for it.
 *
 * @example tookComment([{ agentName: "Builder", key: "APP-7", link }]) // "Builder took this as APP-7: <link>"
 */
export function tookComment(filed: readonly FiledForIssue[]): string {
  return filed.map((task) => `${task.agentName} took this as ${task.key}: ${task.link}`).join("\n");
}
