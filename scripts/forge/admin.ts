/**
 * The forge's admin API under `/__forge`, for tests only (served on loopback, never on the
 * address the boxes reach): repositories, installations, a user's approval on the install
 * page (`/install`, install.ts) or a user's authorisation of the App (`/authorize`),
 * organisation memberships and collaborators (people.ts), the token lifetime, the tokens
 * minted so far (so a test can look for them where they must never appear), and a
 * repository's pull requests with their draft state and comments. Issues, comments and
 * reviews as a named user, webhooks and their deliveries, and CI: admin-loop.ts.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ForgeError, readJson, sendJson } from "./http";
import { approveInstall, authorize, type InstallContext } from "./install";
import { servePeopleAdmin } from "./people";
import { type PullsContext, pullHtmlUrl } from "./pulls";
import { createBareRepo, isFullName, listRefs, log, readFileAt } from "./repos";
import type { ApiFault, ForgeState, Installation } from "./state";

export interface AdminContext {
  state: ForgeState;
  /** The App's install page and OAuth client, for `/install`. */
  install: InstallContext;
  /** Where the bare repositories live. */
  root: string;
  /** The git base the boxes use, for each repository's clone_url. */
  gitUrl: string;
  /** The pull requests' base URL, for their html_url. */
  pulls: PullsContext;
  /** Answers queued by `POST /__forge/faults` (not kept across restarts). */
  faults: ApiFault[];
}

/** Serves `path` (below `/__forge`); false when no route matches. */
export async function serveAdmin(ctx: AdminContext, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
  const method = req.method ?? "GET";
  const { state } = ctx;
  if (path === "/repos" && method === "POST") {
    sendJson(res, 201, await createRepository(ctx, await readJson(req)));
    return true;
  }
  const repoPath = /^\/repos\/([^/]+\/[^/]+?)(?:\/(commits|pulls|files\/(.+)))?$/.exec(path);
  if (repoPath && method === "GET") {
    const fullName = repoPath[1]!;
    const repository = state.repositories.get(fullName);
    if (!repository) throw new ForgeError(404, `No repository ${fullName}`);
    const ref = query.get("ref") ?? repository.default_branch;
    if (repoPath[2] === "pulls") {
      // Every pull, oldest first, with what the platform did to it (draft or ready, comments).
      const pulls = state.pulls.of(fullName).map((pull) => ({ ...pull, html_url: pullHtmlUrl(ctx.pulls, pull) }));
      sendJson(res, 200, { pulls });
    } else if (repoPath[2] === "commits") {
      sendJson(res, 200, { commits: await log(ctx.root, fullName, ref, Number(query.get("limit") ?? 100)) });
    } else if (repoPath[3] !== undefined) {
      const text = await readFileAt(ctx.root, fullName, ref, decodeURIComponent(repoPath[3]));
      if (text === null) throw new ForgeError(404, `No file ${repoPath[3]} at ${ref}`);
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(text);
    } else {
      const refs = await listRefs(ctx.root, fullName);
      const branches = refs.filter((r) => r.ref.startsWith("refs/heads/")).map((r) => ({ name: r.ref.slice("refs/heads/".length), sha: r.sha }));
      sendJson(res, 200, { ...repository, clone_url: cloneUrl(ctx, fullName), branches, refs });
    }
    return true;
  }
  if (path === "/faults" && method === "POST") {
    ctx.faults.push(apiFault(await readJson(req)));
    sendJson(res, 201, { faults: ctx.faults });
    return true;
  }
  if (path === "/install" && method === "POST") {
    sendJson(res, 201, approveInstall(ctx.install, await readJson(req)));
    return true;
  }
  if (path === "/authorize" && method === "POST") {
    sendJson(res, 201, authorize(ctx.install, await readJson(req)));
    return true;
  }
  if (await servePeopleAdmin(state, req, res, path)) return true;
  if (path === "/installations" && method === "POST") {
    const body = await readJson(req);
    const account = body.account;
    if (typeof account !== "string" || !/^[A-Za-z0-9-]+$/.test(account)) throw new ForgeError(422, "account must be a GitHub login");
    const users = body.users ?? [];
    if (!Array.isArray(users) || !users.every((user) => typeof user === "string")) throw new ForgeError(422, "users must be GitHub logins");
    const installation = state.addInstallation(account, repositoryNames(account, body.repositories ?? []), users as string[]);
    sendJson(res, 201, installationBody(installation));
    return true;
  }
  const installationPath = /^\/installations\/(\d+)(?:\/repositories(?:\/([^/]+\/[^/]+))?)?$/.exec(path);
  if (installationPath) {
    const installation = state.installations.get(Number(installationPath[1]));
    if (!installation) throw new ForgeError(404, `No installation ${installationPath[1]}`);
    const isRepositories = path.endsWith("/repositories") || installationPath[2] !== undefined;
    if (!isRepositories && method === "GET") {
      sendJson(res, 200, installationBody(installation));
    } else if (!isRepositories && method === "DELETE") {
      // Revoked as when an organisation uninstalls the App: its tokens stop working at once.
      installation.revoked = true;
      sendJson(res, 200, installationBody(installation));
    } else if (isRepositories && installationPath[2] === undefined && method === "POST") {
      const body = await readJson(req);
      for (const name of repositoryNames(installation.account, [body.repository])) installation.repositories.add(name);
      sendJson(res, 200, installationBody(installation));
    } else if (installationPath[2] !== undefined && method === "DELETE") {
      installation.repositories.delete(installationPath[2]);
      sendJson(res, 200, installationBody(installation));
    } else {
      return false;
    }
    return true;
  }
  if (path === "/token-ttl" && method === "PUT") {
    const seconds = (await readJson(req)).seconds;
    if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 0) throw new ForgeError(422, "seconds must be a whole number, 0 or more");
    state.tokenTtlS = seconds;
    sendJson(res, 200, { seconds });
    return true;
  }
  if (path === "/tokens" && method === "GET") {
    const tokens = [...state.tokens.values()].map((t) => ({ ...t, expires_at: t.expires_at.toISOString() }));
    sendJson(res, 200, { tokens });
    return true;
  }
  return false;
}

/** `{full_name, private?: false, default_branch?: "main", files?: {path: text}, draft_pull_requests?: true}` */
async function createRepository(ctx: AdminContext, body: Record<string, unknown>) {
  const { full_name: fullName, private: isPrivate = false, default_branch: defaultBranch = "main", files = {}, draft_pull_requests: drafts = true } = body;
  if (typeof fullName !== "string" || !isFullName(fullName)) throw new ForgeError(422, "full_name must be owner/repo");
  if (typeof isPrivate !== "boolean") throw new ForgeError(422, "private must be a boolean");
  if (typeof drafts !== "boolean") throw new ForgeError(422, "draft_pull_requests must be a boolean");
  if (typeof defaultBranch !== "string" || !/^[A-Za-z0-9._/-]+$/.test(defaultBranch)) throw new ForgeError(422, "default_branch must be a branch name");
  if (typeof files !== "object" || files === null || Object.values(files).some((text) => typeof text !== "string")) {
    throw new ForgeError(422, "files must map paths to text");
  }
  if (Object.keys(files).some((path) => path.startsWith("/") || path.split("/").includes("..")))
    throw new ForgeError(422, "files paths must stay inside the repository");
  if (ctx.state.repositories.has(fullName)) throw new ForgeError(409, `Repository ${fullName} exists`);
  await createBareRepo(ctx.root, fullName, defaultBranch, files as Record<string, string>);
  const repository = { full_name: fullName, private: isPrivate, default_branch: defaultBranch, ...(drafts ? {} : { draft_pull_requests: false }) };
  ctx.state.repositories.set(fullName, repository);
  return { ...repository, clone_url: cloneUrl(ctx, fullName) };
}

/** Names of the account's repositories, given as `repo` or `owner/repo`. */
function repositoryNames(account: string, names: unknown): string[] {
  if (!Array.isArray(names) || !names.every((name) => typeof name === "string" && name.length > 0)) {
    throw new ForgeError(422, "repositories must be repository names");
  }
  return (names as string[]).map((name) => (name.includes("/") ? name : `${account}/${name}`));
}

function installationBody(installation: Installation) {
  return {
    id: installation.id,
    account: installation.account,
    repositories: [...installation.repositories],
    revoked: installation.revoked,
    users: [...installation.users],
  };
}

function cloneUrl(ctx: AdminContext, fullName: string): string {
  return `${ctx.gitUrl}/${fullName}.git`;
}

/**
 * `{path, status, times?: 1, message?, headers?}`: the next `times` API requests whose path
 * starts with `path` (below `/api`) are answered `status` instead, as a GitHub outage or rate
 * limit would be, e.g. `{path: "/repos/acme/app/pulls", status: 403, headers: {"retry-after": "1"}}`.
 */
function apiFault(body: Record<string, unknown>): ApiFault {
  const { path, status, times = 1, message = "Fault injected by the forge", headers = {} } = body;
  if (typeof path !== "string" || !path.startsWith("/")) throw new ForgeError(422, "path must start with /");
  if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 599) throw new ForgeError(422, "status must be an HTTP error status");
  if (typeof times !== "number" || !Number.isInteger(times) || times < 1) throw new ForgeError(422, "times must be a positive integer");
  if (typeof message !== "string") throw new ForgeError(422, "message must be a string");
  if (typeof headers !== "object" || headers === null || Object.values(headers).some((v) => typeof v !== "string")) {
    throw new ForgeError(422, "headers must map names to text");
  }
  return { path, status, times, message, headers: headers as Record<string, string> };
}

/** The fault queued for an API request to `path`, used up by one; null when none applies. */
export function takeFault(faults: ApiFault[], path: string): ForgeError | null {
  const index = faults.findIndex((fault) => path.startsWith(fault.path));
  if (index === -1) return null;
  const fault = faults[index]!;
  if (--fault.times === 0) faults.splice(index, 1);
  return new ForgeError(fault.status, fault.message, fault.headers);
}
