/**
 * What people and the App do on issues and pull requests, with the webhooks GitHub fires for
 * each: filing an issue (issues opened, then labeled per label), labelling (issues labeled,
 * or pull_request labeled), commenting (issue_comment created), reviewing
 * (pull_request_review submitted, then pull_request_review_comment created per line comment)
 * and a lone line comment; editing, closing and reopening an issue (issues edited, closed,
 * reopened); merging a pull request (pull_request closed with merged, and the issues its body
 * closes with `Closes #n`, as GitHub does). The REST API (as the App's bot) and the admin API (as a named
 * user) both come here, so both fire the same events.
 */
import type { ForgeEvents } from "./events";
import { ForgeError, validationFailed } from "./http";
import type { Issue } from "./issue-state";
import { iso, type Pull, type PullComment, type Review, type ReviewComment } from "./pull-state";
import { mergeBranches } from "./repos";
import type { ForgeState } from "./state";

export interface ActivityContext {
  state: ForgeState;
  events: ForgeEvents;
}

/** GitHub's review events (what a reviewer submits) and the state each leaves. */
export const REVIEW_EVENTS = { APPROVE: "APPROVED", REQUEST_CHANGES: "CHANGES_REQUESTED", COMMENT: "COMMENTED" } as const;

export interface LineComment {
  path: string;
  line: number;
  body: string;
}

export function fileIssue(ctx: ActivityContext, fullName: string, user: string, fields: { title: unknown; body?: unknown; labels?: unknown }): Issue {
  if (typeof fields.title !== "string" || !fields.title) throw validationFailed({ resource: "Issue", field: "title", code: "missing_field" });
  if (fields.body !== undefined && fields.body !== null && typeof fields.body !== "string") throw new ForgeError(422, "body is not a string or null.");
  const labels = labelNames(fields.labels ?? []);
  const at = iso(new Date());
  const id = ctx.state.pulls.newId();
  const issue = ctx.state.issues.add({
    id,
    node_id: `I_kwDO${Buffer.from(`issue:${id}`).toString("base64url")}`,
    full_name: fullName,
    number: ctx.state.nextNumber(fullName),
    title: fields.title,
    body: (fields.body as string | null | undefined) ?? "",
    labels: [...new Set(labels)],
    user,
    state: "open",
    created_at: at,
    updated_at: at,
    comments: [],
  });
  // As GitHub does for an issue filed with labels: opened carries them, then labeled fires for each.
  ctx.events.emit("issues", "opened", fullName, user, { issue: ctx.events.issue(issue) });
  for (const name of issue.labels) ctx.events.emit("issues", "labeled", fullName, user, { issue: ctx.events.issue(issue), label: { name } });
  return issue;
}

/** Adds the labels the item lacks, firing labeled for each new one; returns all it carries. */
export function addLabels(ctx: ActivityContext, item: Issue | Pull, user: string, labels: string[]): string[] {
  for (const name of labels) {
    if (item.labels.includes(name)) continue;
    item.labels.push(name);
    item.updated_at = iso(new Date());
    const label = { name };
    if ("head" in item)
      ctx.events.emit("pull_request", "labeled", item.full_name, user, { number: item.number, pull_request: ctx.events.pullRequest(item), label });
    else ctx.events.emit("issues", "labeled", item.full_name, user, { issue: ctx.events.issue(item), label });
  }
  return item.labels;
}

/** Label names from `["a"]` or `[{name: "a"}]`, as GitHub takes them. */
export function labelNames(labels: unknown): string[] {
  if (!Array.isArray(labels)) throw validationFailed({ resource: "Label", field: "labels", code: "invalid" });
  return labels.map((label) => {
    const name = typeof label === "object" && label !== null ? (label as { name?: unknown }).name : label;
    if (typeof name !== "string" || !name) throw validationFailed({ resource: "Label", field: "labels", code: "invalid" });
    return name;
  });
}

/** The issue or pull request numbered so; 404 when there is neither. */
export function issueOrPull(state: ForgeState, fullName: string, number: number): Issue | Pull {
  const item = state.issues.get(fullName, number) ?? state.pulls.get(fullName, number);
  if (!item) throw new ForgeError(404, "Not Found");
  return item;
}

export function addComment(ctx: ActivityContext, item: Issue | Pull, user: string, body: unknown): PullComment {
  if (typeof body !== "string" || !body) throw validationFailed({ resource: "IssueComment", field: "body", code: "missing_field" });
  const comment = { id: ctx.state.pulls.newId(), body, user, created_at: iso(new Date()) };
  item.comments.push(comment);
  item.updated_at = comment.created_at;
  ctx.events.emit("issue_comment", "created", item.full_name, user, { issue: ctx.events.issue(item), comment: ctx.events.comment(item, comment) });
  return comment;
}

export function submitReview(ctx: ActivityContext, pull: Pull, user: string, fields: Record<string, unknown>): Review {
  const state = REVIEW_EVENTS[fields.event as keyof typeof REVIEW_EVENTS];
  if (!state) throw validationFailed({ resource: "PullRequestReview", field: "event", code: "invalid" });
  const body = fields.body ?? "";
  if (typeof body !== "string") throw validationFailed({ resource: "PullRequestReview", field: "body", code: "invalid" });
  if (state !== "APPROVED" && !body && !Array.isArray(fields.comments)) {
    throw new ForgeError(
      422,
      `Unprocessable Entity: "Review Can not ${fields.event === "COMMENT" ? "comment" : "request changes"} on a pull request without a body"`,
    );
  }
  const lines = lineComments(fields.comments ?? []);
  const review: Review = { id: ctx.state.pulls.newId(), state, body, user, commit_id: pull.head_sha, submitted_at: iso(new Date()) };
  pull.reviews.push(review);
  const made = lines.map((line) => newReviewComment(ctx, pull, user, line, review.id));
  const head = { number: pull.number, pull_request: ctx.events.pullRequest(pull) };
  ctx.events.emit("pull_request_review", "submitted", pull.full_name, user, {
    ...head,
    review: { ...ctx.events.review(pull, review), state: state.toLowerCase() },
  });
  for (const comment of made)
    ctx.events.emit("pull_request_review_comment", "created", pull.full_name, user, { ...head, comment: ctx.events.reviewComment(pull, comment) });
  return review;
}

export function addReviewComment(ctx: ActivityContext, pull: Pull, user: string, fields: Record<string, unknown>): ReviewComment {
  const [line] = lineComments([fields]);
  const comment = newReviewComment(ctx, pull, user, line!, null);
  ctx.events.emit("pull_request_review_comment", "created", pull.full_name, user, {
    number: pull.number,
    pull_request: ctx.events.pullRequest(pull),
    comment: ctx.events.reviewComment(pull, comment),
  });
  return comment;
}

function newReviewComment(ctx: ActivityContext, pull: Pull, user: string, line: LineComment, reviewId: number | null): ReviewComment {
  const comment: ReviewComment = { id: ctx.state.pulls.newId(), review_id: reviewId, ...line, user, commit_id: pull.head_sha, created_at: iso(new Date()) };
  pull.review_comments.push(comment);
  pull.updated_at = comment.created_at;
  return comment;
}

/** `[{path, line, body}]`: each a file, a line from 1 and text. */
function lineComments(comments: unknown): LineComment[] {
  if (!Array.isArray(comments)) throw validationFailed({ resource: "PullRequestReviewComment", field: "comments", code: "invalid" });
  return comments.map((comment) => {
    const { path, line, body } = (comment ?? {}) as Record<string, unknown>;
    if (typeof path !== "string" || !path) throw validationFailed({ resource: "PullRequestReviewComment", field: "path", code: "missing_field" });
    if (typeof line !== "number" || !Number.isInteger(line) || line < 1)
      throw validationFailed({ resource: "PullRequestReviewComment", field: "line", code: "invalid" });
    if (typeof body !== "string" || !body) throw validationFailed({ resource: "PullRequestReviewComment", field: "body", code: "missing_field" });
    return { path, line, body };
  });
}

/** `{title?, body?, state?}`: edited when the title or body changed (with `changes`), closed or reopened when the state did. */
export function editIssue(ctx: ActivityContext, issue: Issue, user: string, fields: Record<string, unknown>): Issue {
  const { title, body, state } = fields;
  if (title !== undefined && (typeof title !== "string" || !title)) throw validationFailed({ resource: "Issue", field: "title", code: "invalid" });
  if (body !== undefined && body !== null && typeof body !== "string") throw validationFailed({ resource: "Issue", field: "body", code: "invalid" });
  if (state !== undefined && state !== "open" && state !== "closed") throw validationFailed({ resource: "Issue", field: "state", code: "invalid" });
  const changes: Record<string, { from: string }> = {};
  if (typeof title === "string" && title !== issue.title) changes.title = { from: issue.title };
  if (body !== undefined && (body ?? "") !== issue.body) changes.body = { from: issue.body };
  if (typeof title === "string") issue.title = title;
  if (body !== undefined) issue.body = body ?? "";
  const stateChanged = state !== undefined && state !== issue.state;
  if (stateChanged) issue.state = state;
  if (Object.keys(changes).length || stateChanged) issue.updated_at = iso(new Date());
  if (Object.keys(changes).length) ctx.events.emit("issues", "edited", issue.full_name, user, { issue: ctx.events.issue(issue), changes });
  if (stateChanged) ctx.events.emit("issues", state === "closed" ? "closed" : "reopened", issue.full_name, user, { issue: ctx.events.issue(issue) });
  return issue;
}

/** The issue numbers a pull request's body closes (`Closes #3`, `fixes #4`, `Resolves #5`). */
export function closingNumbers(body: string): number[] {
  return [...body.matchAll(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s+#(\d+)\b/gi)].map((match) => Number(match[1]));
}

/** Merges an open pull request into its base: pull_request closed (merged), then the issues it closes. */
export async function mergePull(ctx: ActivityContext & { root: string }, pull: Pull, user: string): Promise<string> {
  if (pull.state !== "open") throw new ForgeError(405, "Pull Request is not mergeable");
  const sha = await mergeBranches(ctx.root, pull.full_name, pull.base, pull.head, `Merge pull request #${pull.number} from ${pull.head}\n\n${pull.title}`);
  if (!sha) throw new ForgeError(405, "Pull Request is not mergeable");
  pull.state = "closed";
  pull.merged_at = iso(new Date());
  pull.updated_at = pull.merged_at;
  ctx.events.emit("pull_request", "closed", pull.full_name, user, { number: pull.number, pull_request: ctx.events.pullRequest(pull) });
  for (const number of closingNumbers(pull.body)) {
    const issue = ctx.state.issues.get(pull.full_name, number);
    if (issue?.state === "open") editIssue(ctx, issue, user, { state: "closed" });
  }
  return sha;
}
