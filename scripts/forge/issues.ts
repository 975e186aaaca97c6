/**
 * GitHub's issue and review endpoints under `/api`, for installation tokens (authorised as
 * pulls.ts does) and anonymous reads of public repositories:
 * - `GET /repos/:o/:r/issues/:n`: an issue, or a pull request as an issue (`pull_request` set);
 *   `PATCH` edits an issue's title, body or state;
 * - `POST|GET /repos/:o/:r/issues/:n/comments`: the conversation of either;
 * - `POST /repos/:o/:r/issues/:n/labels` `{labels}`: adds labels, answers all the item carries;
 * - `POST|GET /repos/:o/:r/pulls/:n/reviews` `{event, body, comments?}`;
 * - `GET /repos/:o/:r/pulls/:n/comments`: the review comments, with path and line.
 * An issue needs the `issues` permission, a pull request `pull_requests` or `issues`
 * (reviews `pull_requests`). What the App writes is by `<slug>[bot]` and fires the webhooks
 * a person's would (activity.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { addComment, addLabels, editIssue, issueOrPull, labelNames, submitReview } from "./activity";
import { ForgeError, readJson, sendJson } from "./http";
import type { Issue } from "./issue-state";
import type { Pull } from "./pull-state";
import { authorise, type PullsContext } from "./pulls";

const REPO = "([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)";
const ISSUE = new RegExp(`^/repos/${REPO}/issues/(\\d+)(?:/(comments|labels))?$`);
const REVIEWS = new RegExp(`^/repos/${REPO}/pulls/(\\d+)/(reviews|comments)$`);

/** Serves `path` (below `/api`); false when no route matches. */
export async function serveIssues(ctx: PullsContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const method = req.method ?? "GET";
  const issue = ISSUE.exec(path);
  if (issue) {
    const [, fullName, number, part] = issue as unknown as [string, string, string, string | undefined];
    const write = method !== "GET";
    if ((part === undefined && write && method !== "PATCH") || (part === "labels" && method !== "POST") || (part === "comments" && write && method !== "POST"))
      return false;
    // Whether the number is a pull request decides the permission; an unknown one is 404 after authorising.
    const known = ctx.state.issues.get(fullName, Number(number)) ?? ctx.state.pulls.get(fullName, Number(number));
    const user = authorise(ctx, req, fullName, write, known && !("head" in known) ? ["issues"] : ["pull_requests", "issues"]);
    const item = issueOrPull(ctx.state, fullName, Number(number));
    if (part === undefined && method === "PATCH") {
      if ("head" in item) throw new ForgeError(422, "Edit a pull request with PATCH /pulls/:n");
      sendJson(res, 200, ctx.events.issue(editIssue(ctx, item, user, await readJson(req))));
    } else if (part === undefined) {
      sendJson(res, 200, ctx.events.issue(item));
    } else if (part === "labels") {
      const { labels } = await readJson(req);
      const names = addLabels(ctx, item, user, labelNames(labels));
      sendJson(
        res,
        200,
        names.map((name) => ({ name, default: false })),
      );
    } else if (method === "POST") {
      const { body } = await readJson(req);
      sendJson(res, 201, ctx.events.comment(item, addComment(ctx, item, user, body)));
    } else {
      sendJson(
        res,
        200,
        item.comments.map((comment) => ctx.events.comment(item, comment)),
      );
    }
    return true;
  }
  const reviews = REVIEWS.exec(path);
  if (reviews) {
    const [, fullName, number, part] = reviews as unknown as [string, string, string, "reviews" | "comments"];
    if (method !== "GET" && !(part === "reviews" && method === "POST")) return false;
    const user = authorise(ctx, req, fullName, method === "POST");
    const pull = ctx.state.pulls.get(fullName, Number(number));
    if (!pull) throw new ForgeError(404, "Not Found");
    if (method === "POST") {
      const review = submitReview(ctx, pull, user, await readJson(req));
      sendJson(res, 200, ctx.events.review(pull, review));
    } else if (part === "reviews") {
      sendJson(
        res,
        200,
        pull.reviews.map((review) => ctx.events.review(pull, review)),
      );
    } else {
      sendJson(
        res,
        200,
        pull.review_comments.map((comment) => ctx.events.reviewComment(pull, comment)),
      );
    }
    return true;
  }
  return false;
}

export type { Issue, Pull };
