/**
 * The part of GitHub's REST API the platform uses, under `/api`: the App's installations
 * and their access tokens (both authenticated with the App JWT), the two endpoints an
 * installation token itself may call, and a user's installations (people.ts has the rest of
 * what a user token may ask). Answers in GitHub's shapes and status codes.
 */
import type { KeyObject } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyAppJwt } from "./app-jwt";
import { bearer, ForgeError, readJson, sendJson } from "./http";
import { tokenUser } from "./people";
import { People } from "./people-state";
import { compareCommits, diffFiles } from "./repos";
import type { ForgeState, Installation, MintedToken, Permissions } from "./state";

/**
 * What every installation of the App was granted: contents and pull requests (the task runs),
 * issues (comments on them) and checks read (CI results).
 */
const INSTALLATION_PERMISSIONS: Permissions = { contents: "write", pull_requests: "write", issues: "write", checks: "read", metadata: "read" };
const UNREACHABLE = "There is at least one repository that does not exist or is not accessible to the parent installation.";

export interface GitHubApiContext {
  state: ForgeState;
  appId: string;
  publicKey: KeyObject;
  /** Where the bare repositories are (compare reads them). */
  root: string;
}

/** Serves `path` (below `/api`); false when no route matches. */
export async function serveGitHubApi(
  ctx: GitHubApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query = new URLSearchParams(),
): Promise<boolean> {
  const method = req.method ?? "GET";
  const installationPath = /^\/app\/installations\/(\d+)(\/access_tokens)?$/.exec(path);
  if (installationPath) {
    appJwt(ctx, req);
    const installation = ctx.state.liveInstallation(Number(installationPath[1]));
    if (!installationPath[2] && method === "GET") {
      if (!installation) throw new ForgeError(404, "Not Found");
      sendJson(res, 200, installationBody(ctx, installation));
      return true;
    }
    if (installationPath[2] && method === "POST") {
      const body = await readJson(req);
      if (!installation) throw new ForgeError(404, "Not Found");
      const minted = mintFor(ctx, installation, body);
      sendJson(res, 201, tokenBody(ctx, minted));
      return true;
    }
    return false;
  }
  if (path === "/app" && method === "GET") {
    appJwt(ctx, req);
    sendJson(res, 200, { id: Number(ctx.appId), slug: "guilds-forge", name: "Guilds (local forge)" });
    return true;
  }
  if (path === "/user/installations" && method === "GET") {
    // A user token (from the OAuth code exchange) sees the live installations its user may.
    const user = tokenUser(ctx.state, req);
    const { perPage, page } = paging(query);
    const all = ctx.state.userInstallations(user);
    const installations = all.slice((page - 1) * perPage, page * perPage).map((i) => installationBody(ctx, i));
    sendJson(res, 200, { total_count: all.length, installations });
    return true;
  }
  if (path === "/installation/repositories" && method === "GET") {
    const minted = installationToken(ctx, req);
    const repositories = minted.repositories.filter((name) => ctx.state.repositories.has(name)).map((name) => repositoryBody(ctx, name));
    sendJson(res, 200, { total_count: repositories.length, repositories });
    return true;
  }
  const compare = /^\/repos\/([^/]+\/[^/]+)\/compare\/(.+)$/.exec(path);
  if (compare && method === "GET") {
    await serveCompare(ctx, req, res, compare[1]!, decodeURIComponent(compare[2]!));
    return true;
  }
  if (path === "/installation/token" && method === "DELETE") {
    installationToken(ctx, req).revoked = true;
    res.writeHead(204).end();
    return true;
  }
  return false;
}

/**
 * `GET /repos/{owner}/{repo}/compare/{base}...{head}`: GitHub's status (ahead, behind,
 * identical, diverged), counts and the files changed (additions, deletions, changes); 404 for a commit the repository does not have, or a
 * private repository the token does not reach.
 */
async function serveCompare(ctx: GitHubApiContext, req: IncomingMessage, res: ServerResponse, fullName: string, basehead: string): Promise<void> {
  const token = bearer(req);
  if (token !== null && !ctx.state.liveToken(token)) throw new ForgeError(401, "Bad credentials");
  const repository = ctx.state.repositories.get(fullName);
  if (!repository || (repository.private && (token === null || ctx.state.access(token, fullName) === "none"))) throw new ForgeError(404, "Not Found");
  const [base, head, ...extra] = basehead.split("...");
  if (!base || !head || extra.length) throw new ForgeError(404, "Not Found");
  const found = await compareCommits(ctx.root, fullName, base, head);
  if (!found) throw new ForgeError(404, "Not Found");
  const status = found.ahead && found.behind ? "diverged" : found.ahead ? "ahead" : found.behind ? "behind" : "identical";
  // Three dots: what head changed since the merge base, as GitHub's files list it.
  const files = found.mergeBase ? await diffFiles(ctx.root, fullName, found.mergeBase, found.head) : [];
  sendJson(res, 200, {
    status,
    ahead_by: found.ahead,
    behind_by: found.behind,
    total_commits: found.ahead,
    base_commit: { sha: found.base },
    merge_base_commit: found.mergeBase ? { sha: found.mergeBase } : null,
    files,
  });
}

/** GitHub's `per_page` (default 30, at most 100) and `page` (from 1). */
function paging(query: URLSearchParams): { perPage: number; page: number } {
  const whole = (name: string, fallback: number) => {
    const value = Number(query.get(name) ?? fallback);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return { perPage: Math.min(whole("per_page", 30), 100), page: whole("page", 1) };
}

function appJwt(ctx: GitHubApiContext, req: IncomingMessage): void {
  const jwt = bearer(req);
  if (!jwt) throw new ForgeError(401, "A JSON web token could not be decoded (no Bearer credential)");
  verifyAppJwt(jwt, { appId: ctx.appId, publicKey: ctx.publicKey });
}

function installationToken(ctx: GitHubApiContext, req: IncomingMessage): MintedToken {
  const token = bearer(req);
  const minted = token ? ctx.state.liveToken(token) : undefined;
  if (!minted) throw new ForgeError(401, "Bad credentials");
  return minted;
}

/** `{repositories?: [name], permissions?: {name: "read"|"write"}}`, as GitHub takes them. */
function mintFor(ctx: GitHubApiContext, installation: Installation, body: Record<string, unknown>): MintedToken {
  const { repositories, permissions } = body;
  if (repositories !== undefined && (!Array.isArray(repositories) || !repositories.every((r) => typeof r === "string"))) {
    throw new ForgeError(422, "repositories must be an array of repository names");
  }
  // Names within the installation's account, never `owner/repo` (GitHub does not accept those).
  const names = (repositories as string[] | undefined) ?? [];
  if (names.some((name) => name.includes("/"))) throw new ForgeError(422, UNREACHABLE);
  const fullNames = repositories === undefined ? [...installation.repositories] : names.map((name) => `${installation.account}/${name}`);
  if (ctx.state.unreachable(installation, fullNames).length) throw new ForgeError(422, UNREACHABLE);
  return ctx.state.mint(installation, fullNames, grantedPermissions(permissions));
}

function grantedPermissions(asked: unknown): Permissions {
  if (asked === undefined) return { ...INSTALLATION_PERMISSIONS };
  if (typeof asked !== "object" || asked === null || Array.isArray(asked)) throw new ForgeError(422, "permissions must be an object");
  const granted: Permissions = {};
  for (const [name, level] of Object.entries(asked)) {
    const held = INSTALLATION_PERMISSIONS[name];
    if ((level !== "read" && level !== "write") || !held || (level === "write" && held === "read")) {
      throw new ForgeError(422, "The permissions requested are not granted to this installation.");
    }
    granted[name] = level;
  }
  return granted;
}

function installationBody(ctx: GitHubApiContext, installation: Installation) {
  const type = ctx.state.people.isOrganisation(installation.account) ? "Organization" : "User";
  const id = People.id(installation.account);
  return {
    id: installation.id,
    app_id: Number(ctx.appId),
    account: { login: installation.account, id, type },
    target_id: id,
    target_type: type,
    repository_selection: "selected",
    permissions: INSTALLATION_PERMISSIONS,
  };
}

function tokenBody(ctx: GitHubApiContext, minted: MintedToken) {
  return {
    token: minted.token,
    expires_at: minted.expires_at.toISOString().replace(/\.\d{3}Z$/, "Z"),
    permissions: minted.permissions,
    repository_selection: "selected",
    repositories: minted.repositories.map((name) => repositoryBody(ctx, name)),
  };
}

function repositoryBody(ctx: GitHubApiContext, fullName: string) {
  const repository = ctx.state.repositories.get(fullName);
  return {
    name: fullName.slice(fullName.indexOf("/") + 1),
    full_name: fullName,
    private: repository?.private ?? true,
    default_branch: repository?.default_branch ?? "main",
  };
}
