/**
 * GitHub's Checks API and the branch endpoints the platform uses, under `/api`, for
 * installation tokens (authorised as pulls.ts does; public repositories read anonymously):
 * - `GET /repos/:o/:r/commits/:ref/check-runs` (`:ref` a sha or a branch; `check_name`,
 *   `status`, `filter=latest|all`) → `{total_count, check_runs}`, newest first;
 * - `GET /repos/:o/:r/check-runs/:id`;
 * - `GET /repos/:o/:r/commits/:ref/check-suites` → `{total_count, check_suites}`;
 * - `GET /repos/:o/:r/branches/:branch` → `{name, commit: {sha}, protected}`;
 * - `DELETE /repos/:o/:r/git/refs/heads/:branch` (contents write): 204, or 422 "Reference
 *   does not exist".
 * Checks need the `checks` permission, branches `contents` (or `metadata`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ForgeError, sendJson } from "./http";
import { authorise, type PullsContext } from "./pulls";
import { branchSha, deleteBranch, resolveCommit } from "./repos";

const REPO = "([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+)";
const COMMIT_CHECKS = new RegExp(`^/repos/${REPO}/commits/(.+)/(check-runs|check-suites)$`);
const CHECK_RUN = new RegExp(`^/repos/${REPO}/check-runs/(\\d+)$`);
const BRANCH = new RegExp(`^/repos/${REPO}/branches/(.+)$`);
const REF = new RegExp(`^/repos/${REPO}/git/refs/heads/(.+)$`);
/** Branch names the forge accepts from a request: no `..` (a git range), no leading `-`. */
const BRANCH_NAME = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]+$/;

/** Serves `path` (below `/api`); false when no route matches. */
export async function serveChecks(ctx: PullsContext, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
  const method = req.method ?? "GET";
  const commitChecks = COMMIT_CHECKS.exec(path);
  if (commitChecks && method === "GET") {
    const [, fullName, ref, kind] = commitChecks as unknown as [string, string, string, string];
    authorise(ctx, req, fullName, false, ["checks"]);
    const sha = await resolveCommit(ctx.root, fullName, decodeURIComponent(ref));
    if (!sha) throw new ForgeError(422, `No commit found for SHA: ${decodeURIComponent(ref)}`);
    if (kind === "check-suites") {
      const suites = ctx.state.checks.suitesOf(fullName, sha).map((suite) => ctx.events.checkSuite(suite));
      sendJson(res, 200, { total_count: suites.length, check_suites: suites });
      return true;
    }
    const name = query.get("check_name");
    const status = query.get("status");
    const latest = (query.get("filter") ?? "latest") === "latest";
    const seen = new Set<string>();
    const runs = ctx.state.checks
      .runsOf(fullName, sha)
      .filter((run) => (name === null || run.name === name) && (status === null || run.status === status))
      // GitHub's default filter keeps each name's most recent run.
      .filter((run) => !latest || (!seen.has(run.name) && seen.add(run.name)))
      .map((run) => ctx.events.checkRun(run));
    sendJson(res, 200, { total_count: runs.length, check_runs: runs });
    return true;
  }
  const checkRun = CHECK_RUN.exec(path);
  if (checkRun && method === "GET") {
    authorise(ctx, req, checkRun[1]!, false, ["checks"]);
    const run = ctx.state.checks.run(checkRun[1]!, Number(checkRun[2]));
    if (!run) throw new ForgeError(404, "Not Found");
    sendJson(res, 200, ctx.events.checkRun(run));
    return true;
  }
  const branch = BRANCH.exec(path);
  if (branch && method === "GET") {
    const [, fullName, name] = branch as unknown as [string, string, string];
    authorise(ctx, req, fullName, false, ["contents", "metadata", "pull_requests"]);
    const branchName = decodeURIComponent(name);
    const sha = BRANCH_NAME.test(branchName) ? await branchSha(ctx.root, fullName, branchName) : null;
    if (!sha) throw new ForgeError(404, "Branch not found");
    const url = `${ctx.webUrl}/api/repos/${fullName}/commits/${sha}`;
    sendJson(res, 200, { name: branchName, commit: { sha, url }, protected: false, _links: { html: `${ctx.webUrl}/${fullName}/tree/${branchName}` } });
    return true;
  }
  const ref = REF.exec(path);
  if (ref && method === "DELETE") {
    const [, fullName, name] = ref as unknown as [string, string, string];
    authorise(ctx, req, fullName, true, ["contents"]);
    const branchName = decodeURIComponent(name);
    if (!BRANCH_NAME.test(branchName) || !(await deleteBranch(ctx.root, fullName, branchName))) throw new ForgeError(422, "Reference does not exist");
    res.writeHead(204).end();
    return true;
  }
  return false;
}
