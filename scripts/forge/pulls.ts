/**
 * GitHub's pull request REST endpoints under `/api`, for one repository's own branches:
 * - `POST /repos/:o/:r/pulls` {title, head, base, body?, draft?}, `GET …/pulls?head=&base=&state=`,
 *   `GET|PATCH …/pulls/:n` (title, body, state); opening and closing fire `pull_request`.
 * (Their conversation, labels and reviews: issues.ts.)
 * Authorised as GitHub authorises an installation token: it must be limited to the
 * repository (else 404 for a private one), and hold `pull_requests` (write to change
 * anything; `issues` write also comments) or it is 403; a public repository reads anonymously.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ForgeEvents } from "./events";
import { bearer, ForgeError, readJson, sendJson, validationFailed } from "./http";
import { iso, type Pull } from "./pull-state";
import { branchSha, commitsAhead } from "./repos";
import type { ForgeState } from "./state";

export interface PullsContext {
  state: ForgeState;
  /** The webhooks what the App does fires. */
  events: ForgeEvents;
  /** Where the bare repositories live. */
  root: string;
  /** The forge's base URL (html_url is under it, the API under `${webUrl}/api`). */
  webUrl: string;
  /** The App's slug: what an installation token writes is by `<slug>[bot]`. */
  appSlug: string;
}

const REPO = "([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)";
const PULLS = new RegExp(`^/repos/${REPO}/pulls(?:/(\\d+))?$`);
/** Branch names the forge accepts from a request: no `..` (a git range), no leading `-`. */
const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]+$/;
const NOT_ACCESSIBLE = "Resource not accessible by integration";

/** Serves `path` (below `/api`); false when no route matches. */
export async function servePulls(ctx: PullsContext, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
  const method = req.method ?? "GET";
  const pulls = PULLS.exec(path);
  if (pulls) {
    const fullName = pulls[1]!;
    const number = pulls[2] === undefined ? undefined : Number(pulls[2]);
    if (number === undefined && method === "POST") {
      const user = authorise(ctx, req, fullName, true);
      const pull = await openPull(ctx, fullName, await readJson(req), user);
      ctx.events.emit("pull_request", "opened", fullName, user, { number: pull.number, pull_request: ctx.events.pullRequest(pull) });
      sendJson(res, 201, await pullBody(ctx, pull));
    } else if (number === undefined && method === "GET") {
      authorise(ctx, req, fullName, false);
      sendJson(res, 200, await Promise.all(listPulls(ctx, fullName, query).map((pull) => pullBody(ctx, pull))));
    } else if (number !== undefined && method === "GET") {
      authorise(ctx, req, fullName, false);
      sendJson(res, 200, await pullBody(ctx, found(ctx, fullName, number)));
    } else if (number !== undefined && method === "PATCH") {
      const user = authorise(ctx, req, fullName, true);
      const pull = found(ctx, fullName, number);
      const was = pull.state;
      updatePull(ctx, pull, await readJson(req));
      if (pull.state !== was) {
        ctx.events.emit("pull_request", pull.state === "closed" ? "closed" : "reopened", fullName, user, {
          number,
          pull_request: ctx.events.pullRequest(pull),
        });
      }
      sendJson(res, 200, await pullBody(ctx, pull));
    } else {
      return false;
    }
    return true;
  }
  return false;
}

/**
 * The login the request acts as (the App's bot, or `""` for an anonymous read), or throws
 * GitHub's answer: 401 for a bad token, 404 where the repository is not visible, 403 where
 * it is but the token lacks the permission.
 */
export function authorise(ctx: PullsContext, req: IncomingMessage, fullName: string, write: boolean, permissions = ["pull_requests"]): string {
  const token = bearer(req);
  const repository = ctx.state.repositories.get(fullName);
  if (token === null) {
    if (!write && repository && !repository.private) return "";
    throw new ForgeError(repository?.private === false ? 401 : 404, repository?.private === false ? "Requires authentication" : "Not Found");
  }
  if (!ctx.state.liveToken(token)) throw new ForgeError(401, "Bad credentials");
  if (!repository) throw new ForgeError(404, "Not Found");
  const reaches = ctx.state.reaches(token, fullName);
  if (!reaches && repository.private) throw new ForgeError(404, "Not Found");
  if (!reaches) {
    if (write) throw new ForgeError(403, NOT_ACCESSIBLE);
    return "";
  }
  const levels = permissions.map((permission) => ctx.state.access(token, fullName, permission));
  if (write ? !levels.includes("write") : levels.every((level) => level === "none")) throw new ForgeError(403, NOT_ACCESSIBLE);
  return `${ctx.appSlug}[bot]`;
}

async function openPull(ctx: PullsContext, fullName: string, body: Record<string, unknown>, user: string): Promise<Pull> {
  const { title, base, draft = false, body: text = "" } = body;
  const owner = fullName.slice(0, fullName.indexOf("/"));
  for (const [field, value] of [
    ["title", title],
    ["head", body.head],
    ["base", base],
  ] as const) {
    if (typeof value !== "string" || !value) throw validationFailed({ resource: "PullRequest", field, code: "missing_field" });
  }
  if (typeof draft !== "boolean") throw new ForgeError(422, "draft is not a boolean.");
  if (typeof text !== "string" && text !== null) throw new ForgeError(422, "body is not a string or null.");
  const head = headBranch(owner, body.head as string);
  const headSha = head === null ? null : await branchSha(ctx.root, fullName, head);
  if (head === null || headSha === null) throw validationFailed({ resource: "PullRequest", field: "head", code: "invalid" });
  if (!BRANCH.test(base as string) || (await branchSha(ctx.root, fullName, base as string)) === null) {
    throw validationFailed({ resource: "PullRequest", field: "base", code: "invalid" });
  }
  if (ctx.state.pulls.of(fullName).some((pull) => pull.state === "open" && pull.head === head && pull.base === base)) {
    throw validationFailed({ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${owner}:${head}.` });
  }
  if (draft && ctx.state.repositories.get(fullName)?.draft_pull_requests === false) {
    throw validationFailed({ resource: "PullRequest", code: "custom", message: "Draft pull requests are not supported in this repository." });
  }
  if ((await commitsAhead(ctx.root, fullName, base as string, head)) === 0) {
    throw validationFailed({ resource: "PullRequest", code: "custom", message: `No commits between ${base} and ${head}` });
  }
  const pull = { full_name: fullName, title: title as string, body: text ?? "", head, base: base as string, head_sha: headSha, draft, user };
  return ctx.state.pulls.open(pull, ctx.state.nextNumber(fullName));
}

/** The branch of `branch` or `owner:branch`; null for another owner (a fork) or a name git would misread. */
function headBranch(owner: string, head: string): string | null {
  const colon = head.indexOf(":");
  if (colon !== -1 && head.slice(0, colon).toLowerCase() !== owner.toLowerCase()) return null;
  const branch = colon === -1 ? head : head.slice(colon + 1);
  return BRANCH.test(branch) ? branch : null;
}

/** GitHub's filters: `state` (open by default, closed, all), `head` (`owner:branch`), `base`; newest first. */
function listPulls(ctx: PullsContext, fullName: string, query: URLSearchParams): Pull[] {
  const state = query.get("state") ?? "open";
  const head = query.get("head");
  const base = query.get("base");
  const owner = fullName.slice(0, fullName.indexOf("/"));
  // GitHub ignores a head without its owner; one of another owner matches nothing here.
  const headBranchName = head?.includes(":") ? headBranch(owner, head) : undefined;
  const perPage = Math.min(Math.max(Number(query.get("per_page")) || 30, 1), 100);
  const page = Math.max(Number(query.get("page")) || 1, 1);
  return ctx.state.pulls
    .of(fullName)
    .filter((pull) => state === "all" || pull.state === state)
    .filter((pull) => headBranchName === undefined || pull.head === headBranchName)
    .filter((pull) => base === null || pull.base === base)
    .reverse()
    .slice((page - 1) * perPage, page * perPage);
}

function updatePull(ctx: PullsContext, pull: Pull, body: Record<string, unknown>): void {
  const { title, body: text, state } = body;
  if (title !== undefined && (typeof title !== "string" || !title)) throw validationFailed({ resource: "PullRequest", field: "title", code: "invalid" });
  if (text !== undefined && text !== null && typeof text !== "string") throw new ForgeError(422, "body is not a string or null.");
  if (state !== undefined && state !== "open" && state !== "closed") throw validationFailed({ resource: "PullRequest", field: "state", code: "invalid" });
  if (state === "open" && pull.state === "closed") {
    const other = ctx.state.pulls.of(pull.full_name).find((p) => p !== pull && p.state === "open" && p.head === pull.head && p.base === pull.base);
    const owner = pull.full_name.slice(0, pull.full_name.indexOf("/"));
    if (other) throw validationFailed({ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${owner}:${pull.head}.` });
  }
  if (typeof title === "string") pull.title = title;
  if (text !== undefined) pull.body = text ?? "";
  if (state === "open" || state === "closed") pull.state = state;
  pull.updated_at = iso(new Date());
}

function found(ctx: PullsContext, fullName: string, number: number): Pull {
  const pull = ctx.state.pulls.get(fullName, number);
  if (!pull) throw new ForgeError(404, "Not Found");
  return pull;
}

export const pullHtmlUrl = (ctx: PullsContext, pull: Pull) => `${ctx.webUrl}/${pull.full_name}/pull/${pull.number}`;

const account = (login: string) => ({ login, type: login.endsWith("[bot]") ? "Bot" : "User" });

export async function pullBody(ctx: PullsContext, pull: Pull) {
  const owner = pull.full_name.slice(0, pull.full_name.indexOf("/"));
  pull.head_sha = (await branchSha(ctx.root, pull.full_name, pull.head)) ?? pull.head_sha;
  const baseSha = await branchSha(ctx.root, pull.full_name, pull.base);
  return {
    url: `${ctx.webUrl}/api/repos/${pull.full_name}/pulls/${pull.number}`,
    id: pull.id,
    node_id: pull.node_id,
    html_url: pullHtmlUrl(ctx, pull),
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    body: pull.body || null,
    user: account(pull.user),
    draft: pull.draft,
    merged: Boolean(pull.merged_at),
    merged_at: pull.merged_at ?? null,
    comments: pull.comments.length,
    created_at: pull.created_at,
    updated_at: pull.updated_at,
    head: { label: `${owner}:${pull.head}`, ref: pull.head, sha: pull.head_sha },
    base: { label: `${owner}:${pull.base}`, ref: pull.base, sha: baseSha },
  };
}
