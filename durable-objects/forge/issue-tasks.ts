/**
 * Issues start tasks (issue 33). An issue labelled with a repository's trigger label, or a
 * comment on an issue that mentions `@<task agent>`, from a writer of the repository, files
 * a task for the task agent of each guild repository of the organisation with that name:
 * title and body from the issue, the comment as its first message. The platform then
 * comments on the issue with each task's link. One task per issue and guild repository
 * (tasks_repository_issue_unique): a second label, or two deliveries at once, file one.
 * A mention on an issue whose task exists is a message to that task.
 */
import { sendTaskMessage, wakeQueue } from "../../bindings/task-messages";
import { type IssueRepository, issueRepositories, taskForIssue } from "../../core/db/forge-tasks";
import { sqlState, UNIQUE_VIOLATION } from "../../core/db/outage";
import { createTask, insertTaskMessage, type TaskRow } from "../../core/db/task-rows";
import type { DeliveryResult, ForgeDelivery, IssueCommentEvent, IssueEvent } from "../../core/github/webhook-event";
import { logEvent } from "../../core/output/log";
import { platformRedactor } from "../../core/output/redaction";
import { findMentions } from "../../core/shared/mentions";
import { conversationMessage } from "../../core/tasks/forge-messages";
import { type FiledForIssue, issueTaskDescription, issueTaskTitle, taskPageUrl, tookComment, triggers } from "../../core/tasks/issue-task";
import type { ActDeps } from "./act-deps";
import { repositoryForge, senderRefusal } from "./sender-access";

type TaskAgent = NonNullable<IssueRepository["agent"]>;
type WithAgent = IssueRepository & { agent: TaskAgent };

/** The issue a task is filed from. */
interface Issue {
  number: number;
  title: string;
  body: string;
  url: string;
}

/** A task filed now, or the one the issue filed before. */
type Filing = { filed: TaskRow; agent: TaskAgent } | { exists: TaskRow };

const ignored = (detail: string): DeliveryResult => ({ outcome: "ignored", detail });
const NO_TASK_AGENT = "no guild repository with a task agent";

/** The organisation's guild repositories of the event's repository that have a task agent. */
async function withTaskAgent(deps: ActDeps, delivery: ForgeDelivery): Promise<WithAgent[]> {
  const rows = await issueRepositories(deps.db, delivery.organisationId, delivery.event.repository);
  return rows.filter((row): row is WithAgent => row.agent !== null);
}

/**
 * Files the task for the issue in the repository, the comment (if any) as its first message,
 * inserted before the queue is woken; the task the issue filed before when there is one.
 */
async function fileIssueTask(deps: ActDeps, delivery: ForgeDelivery, repository: WithAgent, issue: Issue, firstMessage: string | null): Promise<Filing | null> {
  try {
    const task = await createTask(deps.db, {
      organisationId: delivery.organisationId,
      guildId: repository.guildId,
      agentId: repository.agent.id,
      repositoryId: repository.id,
      fullName: repository.fullName,
      title: issueTaskTitle(issue.title, issue.number),
      description: issueTaskDescription(issue.body, issue.url),
      baseBranch: repository.defaultBranch,
      allowForcePush: false,
      issueNumber: issue.number,
      issueUrl: issue.url,
    });
    // The repository was removed meanwhile.
    if (!task) return null;
    if (firstMessage !== null) await insertTaskMessage(deps.db, task.id, firstMessage);
    return { filed: task, agent: repository.agent };
  } catch (error) {
    if (sqlState(error) !== UNIQUE_VIOLATION) throw error;
    const existing = await taskForIssue(deps.db, repository.id, issue.number);
    if (!existing) throw error;
    return { exists: existing };
  }
}

/**
 * After filing: the queue woken, and the issue told which agent took it as which task. A
 * comment GitHub refuses leaves the tasks filed; the detail says so.
 */
async function announce(
  deps: ActDeps,
  delivery: ForgeDelivery,
  issueNumber: number,
  filed: Array<{ task: TaskRow; agent: TaskAgent }>,
): Promise<string | null> {
  if (!filed.length) return null;
  await wakeQueue(deps.env, delivery.organisationId, false);
  const lines: FiledForIssue[] = filed.map(({ task, agent }) => ({ agentName: agent.name, key: task.key, link: taskPageUrl(delivery.origin, task.id) }));
  try {
    const forge = await repositoryForge(deps.env, delivery.event, deps.now());
    await forge.comment({ fullName: delivery.event.repository, number: issueNumber, body: tookComment(lines) });
    return null;
  } catch (error) {
    logEvent("warn", { operation: "forge.issue_comment", delivery_id: delivery.deliveryId, error }, platformRedactor(deps.env));
    return `the comment on #${issueNumber} failed: ${(error as Error).message}`;
  }
}

/** What the filings came to, as the deliveries list shows it. */
async function result(
  deps: ActDeps,
  delivery: ForgeDelivery,
  issueNumber: number,
  parts: string[],
  filed: Array<{ task: TaskRow; agent: TaskAgent }>,
  sent: number,
) {
  const failed = await announce(deps, delivery, issueNumber, filed);
  const detail = [...parts, ...(failed ? [failed] : [])].join("; ");
  return { outcome: filed.length || sent ? "accepted" : "ignored", detail } satisfies DeliveryResult;
}

/** An issue opened with, or given, the trigger label of one of the organisation's guild repositories. */
export async function actOnIssue(deps: ActDeps, delivery: ForgeDelivery, event: IssueEvent): Promise<DeliveryResult> {
  if (event.action !== "opened" && event.action !== "labeled") return ignored(`issue #${event.number} ${event.action}: only opening or labelling files a task`);
  const repositories = await withTaskAgent(deps, delivery);
  if (!repositories.length) return ignored(NO_TASK_AGENT);
  const triggered = repositories.filter((repository) => triggers(event, repository.triggerLabel));
  if (!triggered.length) {
    const labels = [...new Set(repositories.map((r) => `"${r.triggerLabel}"`))].join(" or ");
    return ignored(
      event.action === "labeled" ? `the label "${event.label}" is not the trigger label ${labels}` : `#${event.number} has no trigger label ${labels}`,
    );
  }
  const refused = await senderRefusal(deps.env, event, deps.now());
  if (refused) return ignored(refused);
  const issue = { number: event.number, title: event.title, body: event.body, url: event.url };
  const parts: string[] = [];
  const filed: Array<{ task: TaskRow; agent: TaskAgent }> = [];
  for (const repository of triggered) {
    const filing = await fileIssueTask(deps, delivery, repository, issue, null);
    if (!filing) continue;
    if ("exists" in filing) parts.push(`${filing.exists.key} exists for #${event.number}`);
    else {
      filed.push({ task: filing.filed, agent: filing.agent });
      parts.push(`filed ${filing.filed.key} for ${filing.agent.name}`);
    }
  }
  return result(deps, delivery, event.number, parts.length ? parts : [NO_TASK_AGENT], filed, 0);
}

/**
 * A comment on an issue that mentions a task agent by name (as the guild spells it, the way
 * the group chat reads `@Name`): a message to the issue's task, or a task filed from the
 * issue with the comment as its first message.
 */
export async function actOnIssueComment(deps: ActDeps, delivery: ForgeDelivery, event: IssueCommentEvent): Promise<DeliveryResult> {
  const repositories = await withTaskAgent(deps, delivery);
  if (!repositories.length) return ignored(NO_TASK_AGENT);
  const mentioned = new Set(findMentions(event.body, [...new Set(repositories.map((r) => r.agent.name))]).map((m) => m.name));
  const addressed = repositories.filter((repository) => mentioned.has(repository.agent.name));
  if (!addressed.length) {
    const names = [...new Set(repositories.map((r) => `@${r.agent.name}`))].join(" or ");
    return ignored(`the comment mentions no task agent (${names})`);
  }
  const refused = await senderRefusal(deps.env, event, deps.now());
  if (refused) return ignored(refused);
  const content = conversationMessage({ login: event.sender.login, on: `issue #${event.number}`, body: event.body, url: event.url });
  const issue = { number: event.number, title: event.title, body: event.issueBody, url: event.issueUrl };
  const parts: string[] = [];
  const filed: Array<{ task: TaskRow; agent: TaskAgent }> = [];
  let sent = 0;
  for (const repository of addressed) {
    const existing = await taskForIssue(deps.db, repository.id, event.number);
    const filing: Filing | null = existing ? { exists: existing } : await fileIssueTask(deps, delivery, repository, issue, content);
    if (!filing) continue;
    if ("exists" in filing) {
      await sendTaskMessage(deps.env, deps.db, filing.exists, content, false);
      sent++;
      parts.push(`message to ${filing.exists.key}`);
    } else {
      filed.push({ task: filing.filed, agent: filing.agent });
      parts.push(`filed ${filing.filed.key} for ${filing.agent.name}`);
    }
  }
  return result(deps, delivery, event.number, parts.length ? parts : [NO_TASK_AGENT], filed, sent);
}
