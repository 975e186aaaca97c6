/**
 * The admin API (under `/__forge`, loopback only) of what the forge tells the platform and
 * what people do on it, for tests and the local stack:
 * - `PUT /webhook {url, secret}`, `GET /webhook` → `{url, secret_set}` (the secret is never answered);
 * - `GET /deliveries?repository=&event=` (newest first), `GET /deliveries/:id`,
 *   `POST /deliveries/:id/replay` (the same body, X-GitHub-Delivery and signature again,
 *   answered once sent, with the receiver's `status`);
 *   `:id` is the forge's id or the X-GitHub-Delivery;
 * - `POST /repos/:o/:r/issues {user, title, body, labels?}`, `GET /repos/:o/:r/issues`,
 *   `GET /repos/:o/:r/issues/:n` (an issue or a pull request, `comments` in full),
 *   `PATCH /repos/:o/:r/issues/:n {user, title?, body?, state?}` (edited, closed, reopened);
 * - `POST /repos/:o/:r/issues/:n/labels {user, labels}`, `POST /repos/:o/:r/issues/:n/comments {user, body}`;
 * - `POST /repos/:o/:r/pulls/:n/reviews {user, event, body, comments?: [{path, line, body}]}`;
 * - `POST /repos/:o/:r/pulls/:n/comments {user, body, path, line}`;
 * - `POST /repos/:o/:r/pulls/:n/merge {user}`: a merge commit on the base; closes `Closes #n` issues;
 * - `PUT /ci {timeout_seconds}`, `GET /ci`, `GET /repos/:o/:r/check-runs?sha=&branch=`.
 * Each act is the named user's, whatever their permission (set it with
 * `PUT /repos/:o/:r/collaborators/:user`), and fires the webhooks GitHub would.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { addComment, addLabels, addReviewComment, editIssue, fileIssue, issueOrPull, labelNames, mergePull, submitReview } from "./activity";
import type { Ci } from "./ci";
import { ForgeError, readJson, sendJson } from "./http";
import type { PullsContext } from "./pulls";
import type { Delivery } from "./webhooks";

export interface LoopAdminContext {
  pulls: PullsContext;
  ci: Ci;
}

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO_PATH = /^\/repos\/([A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+)\/(issues|pulls|check-runs)(?:\/(\d+)(?:\/(labels|comments|reviews|merge))?)?$/;

/** Serves `path` (below `/__forge`); false when no route matches. */
export async function serveLoopAdmin(ctx: LoopAdminContext, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
  const method = req.method ?? "GET";
  const { events, state } = ctx.pulls;
  const webhooks = events.webhooks;
  if (path === "/webhook") {
    if (method === "PUT") {
      const { url, secret } = await readJson(req);
      if (typeof url !== "string" || !/^https?:\/\//.test(url)) throw new ForgeError(422, "url must be an http(s) URL");
      if (typeof secret !== "string" || !secret) throw new ForgeError(422, "secret must be a non-empty string");
      webhooks.config = { url, secret };
    } else if (method !== "GET") {
      return false;
    }
    sendJson(res, 200, { url: webhooks.config?.url ?? null, secret_set: Boolean(webhooks.config?.secret) });
    return true;
  }
  if (path === "/deliveries" && method === "GET") {
    const repository = query.get("repository");
    const event = query.get("event");
    const deliveries = webhooks.deliveries.filter((d) => (repository === null || d.repository === repository) && (event === null || d.event === event));
    sendJson(res, 200, { deliveries: deliveries.reverse().map(deliveryBody) });
    return true;
  }
  // A delivery by the forge's id or by its X-GitHub-Delivery (the first with it: the original).
  const delivery = /^\/deliveries\/([0-9a-f-]+)(\/replay)?$/.exec(path);
  if (delivery && (method === "GET" ? !delivery[2] : method === "POST" && delivery[2])) {
    const key = delivery[1]!;
    const id = webhooks.deliveries.find((d) => String(d.id) === key || d.guid === key)?.id ?? -1;
    // A replay is answered once the URL has answered it, with that status.
    const found = delivery[2] ? await webhooks.replay(id) : webhooks.deliveries.find((d) => d.id === id);
    if (!found) throw new ForgeError(404, `No delivery ${key}`);
    sendJson(res, 200, deliveryBody(found));
    return true;
  }
  if (path === "/ci") {
    if (method === "PUT") {
      const seconds = (await readJson(req)).timeout_seconds;
      if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 1)
        throw new ForgeError(422, "timeout_seconds must be a whole number, 1 or more");
      ctx.ci.timeoutSeconds = seconds;
    } else if (method !== "GET") {
      return false;
    }
    sendJson(res, 200, { timeout_seconds: ctx.ci.timeoutSeconds, off: await ctx.ci.off });
    return true;
  }
  const repoPath = REPO_PATH.exec(path);
  if (!repoPath) return false;
  const [, fullName, kind, number, part] = repoPath as unknown as [string, string, string, string | undefined, string | undefined];
  if (!state.repositories.has(fullName)) throw new ForgeError(404, `No repository ${fullName}`);
  if (kind === "check-runs" && number === undefined && method === "GET") {
    const sha = query.get("sha");
    const branch = query.get("branch");
    const runs = state.checks.runsOf(fullName).filter((run) => (sha === null || run.head_sha === sha) && (branch === null || run.head_branch === branch));
    sendJson(res, 200, { check_runs: runs.map((run) => events.checkRun(run)) });
    return true;
  }
  if (kind === "issues" && number !== undefined && part === undefined && method === "GET") {
    // An issue or a pull request, with its comments in full.
    const item = issueOrPull(state, fullName, Number(number));
    sendJson(res, 200, { ...events.issue(item), comments: item.comments.map((comment) => events.comment(item, comment)) });
    return true;
  }
  if (kind === "issues" && number === undefined && method === "GET") {
    sendJson(res, 200, { issues: state.issues.of(fullName).map((issue) => ({ ...events.issue(issue), comments: issue.comments })) });
    return true;
  }
  const editing = method === "PATCH" && kind === "issues" && number !== undefined && part === undefined;
  if ((method !== "POST" && !editing) || kind === "check-runs" || (method === "POST" && number !== undefined && part === undefined)) return false;
  const body = await readJson(req);
  const user = body.user;
  if (typeof user !== "string" || !LOGIN.test(user)) throw new ForgeError(422, "user must be a GitHub login");
  if (editing) {
    const issue = state.issues.get(fullName, Number(number));
    if (!issue) throw new ForgeError(404, `No issue ${fullName}#${number}`);
    sendJson(res, 200, events.issue(editIssue(ctx.pulls, issue, user, body)));
  } else if (kind === "pulls" && part === "merge") {
    const pull = state.pulls.get(fullName, Number(number));
    if (!pull) throw new ForgeError(404, `No pull request ${fullName}#${number}`);
    sendJson(res, 200, { sha: await mergePull(ctx.pulls, pull, user), merged: true });
  } else if (kind === "issues" && number === undefined) {
    const issue = fileIssue(ctx.pulls, fullName, user, { title: body.title, body: body.body, labels: body.labels });
    sendJson(res, 201, events.issue(issue));
  } else if (kind === "issues" && part === "labels") {
    const item = issueOrPull(state, fullName, Number(number));
    sendJson(res, 200, { labels: addLabels(ctx.pulls, item, user, labelNames(body.labels)) });
  } else if (kind === "issues" && part === "comments") {
    const item = issueOrPull(state, fullName, Number(number));
    sendJson(res, 201, events.comment(item, addComment(ctx.pulls, item, user, body.body)));
  } else if (kind === "pulls" && (part === "reviews" || part === "comments")) {
    const pull = state.pulls.get(fullName, Number(number));
    if (!pull) throw new ForgeError(404, `No pull request ${fullName}#${number}`);
    if (part === "reviews") sendJson(res, 201, events.review(pull, submitReview(ctx.pulls, pull, user, body)));
    else sendJson(res, 201, events.reviewComment(pull, addReviewComment(ctx.pulls, pull, user, body)));
  } else {
    return false;
  }
  return true;
}

/** A delivery as the admin API shows it: everything kept, the payload parsed beside the exact body. */
function deliveryBody(delivery: Delivery) {
  return { ...delivery, payload: JSON.parse(delivery.body) as unknown };
}
