/**
 * The local forge: one Node server standing in for GitHub as the platform talks to it.
 * - `/git/<owner>/<repo>.git/...`: smart HTTP git (git http-backend), installation tokens
 *   checked as HTTP Basic `x-access-token:<token>`; public repositories clone anonymously.
 * - `/api/...`: the GitHub REST endpoints of an App (github-api.ts), App JWT checked with
 *   the App's public key; pull requests and their comments (pulls.ts) and the GraphQL
 *   mutation that marks one ready (graphql.ts), with installation tokens; who a user token's
 *   user is, their organisation memberships and repository permissions (people.ts).
 * - `/apps/<slug>/installations/new` and `/login/oauth/access_token`: the install page and
 *   the OAuth code exchange of an installation claim (install.ts).
 * - issues, labels, comments and reviews (issues.ts), the Checks API and branches (checks.ts);
 *   what happens there, and check runs, reach the App as signed webhooks (events.ts,
 *   webhooks.ts); a push of a commit with `.forge/ci.sh` runs it in a container (ci.ts).
 * - `/__forge/...`: the admin API for tests (admin.ts, admin-loop.ts).
 * With a `root` of the caller's, the state is kept there beside the repositories (persist.ts)
 * and read again by the next start.
 * Sandbox boxes reach the host on the container bridge: `gitHost` adds a second listener
 * there that serves `/git` only, so a box cannot mint tokens or read the admin API.
 *
 * @example
 *   const forge = await startForge({ appId: "4242", publicKeyPem });
 *   await fetch(`${forge.adminUrl}/repos`, { method: "POST", body: JSON.stringify({ full_name: "acme/app" }) });
 *   // git clone `${forge.gitUrl}/acme/app.git`
 */
import { createPublicKey, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveAdmin, takeFault } from "./admin";
import { serveLoopAdmin } from "./admin-loop";
import { serveChecks } from "./checks";
import { Ci, type CiOptions } from "./ci";
import { ForgeEvents } from "./events";
import { isPush, serveGit } from "./git-http";
import { serveGitHubApi } from "./github-api";
import { serveGraphQL } from "./graphql";
import { ForgeError, sendError, sendJson } from "./http";
import { type AppIdentity, serveInstall } from "./install";
import { serveIssues } from "./issues";
import { servePeople } from "./people";
import { loadForgeState, saveForgeState } from "./persist";
import { type PullsContext, servePulls } from "./pulls";
import { afterPush, branches } from "./pushes";
import { type ApiFault, ForgeState } from "./state";
import { type WebhookConfig, Webhooks } from "./webhooks";

export interface ForgeOptions {
  /** The App id: the `iss` every App JWT must carry. */
  appId: string;
  /** The App's public key (PEM, SPKI or PKCS#1): App JWTs are verified with it. */
  publicKeyPem: string;
  /**
   * Where the bare repositories and the state live, kept across starts; a temporary folder
   * (removed on close) by default.
   */
  root?: string;
  /** The App's public slug (default `guilds-forge`), OAuth client (made per start by default) and setup URL. */
  identity?: Partial<AppIdentity>;
  /** Loopback port of the API, admin and git (0: a free one). */
  port?: number;
  /** An address the boxes reach (the docker bridge, 172.17.0.1), served git only. */
  gitHost?: string;
  /** Where the App's webhooks go and the secret they are signed with (also `PUT /__forge/webhook`). */
  webhook?: WebhookConfig;
  /** CI of pushes (ci.ts): on where the container engine and the lite image answer. */
  ci?: CiOptions;
  /** The forge's log (CI off, a delivery that failed); console by default. */
  log?: (line: string) => void;
}

export interface Forge {
  /** Loopback base: `${url}/api`, `${url}/__forge`, `${url}/git`. */
  url: string;
  /** GitHub's API base (`https://api.github.com` in production). */
  apiUrl: string;
  /** The git base (`https://github.com`): `${gitUrl}/<owner>/<repo>.git`; on gitHost when given. */
  gitUrl: string;
  adminUrl: string;
  /** GitHub's web base (`https://github.com`): the install page and the OAuth code exchange. */
  webUrl: string;
  appId: string;
  /** The App's slug and OAuth client (GITHUB_APP_SLUG, GITHUB_APP_CLIENT_ID, GITHUB_APP_CLIENT_SECRET). */
  identity: AppIdentity;
  state: ForgeState;
  /** The deliveries sent so far (`idle()` waits for those queued). */
  webhooks: Webhooks;
  /** CI of pushes (`idle()` waits for the runs started). */
  ci: Ci;
  close(): Promise<void>;
}

const GIT_PATH = /^\/git\/([A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+)\.git(\/.*)$/;

export async function startForge(options: ForgeOptions): Promise<Forge> {
  const ownRoot = options.root === undefined;
  const root = options.root ?? mkdtempSync(join(tmpdir(), "forge-"));
  const state = ownRoot ? new ForgeState() : loadForgeState(root);
  const identity: AppIdentity = {
    slug: "guilds-forge",
    clientId: `Iv1.forge${options.appId}`,
    clientSecret: randomBytes(20).toString("hex"),
    ...options.identity,
  };
  const publicKey = createPublicKey(options.publicKeyPem);
  const servers: Server[] = [];
  const listen = async (host: string, port: number, gitOnly: boolean) => {
    const server = createServer((req, res) => {
      handle(req, res, gitOnly).catch((error: unknown) => {
        if (error instanceof ForgeError) return sendError(res, error);
        if (!res.headersSent) return sendJson(res, 500, { message: error instanceof Error ? error.message : String(error) });
        res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };
  const close = async () => {
    await ci.stop();
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    if (ownRoot) rmSync(root, { recursive: true, force: true });
  };

  let gitUrl = "";
  const api = { state, appId: options.appId, publicKey, root };
  const install = { state, app: identity };
  const log = options.log ?? ((line: string) => console.log(`[forge] ${line}`));
  // The base URL is known once the port is: set below.
  const base = { state, root, webUrl: "", appSlug: identity.slug };
  const webhooks = new Webhooks(options.webhook ?? null, log);
  const events = new ForgeEvents(base, webhooks);
  const pulls: PullsContext = Object.assign(base, { events });
  const save = () => {
    if (!ownRoot) saveForgeState(root, state);
  };
  const handledPushes = new Set<string>();
  const ci = new Ci({ state, root, events, appSlug: identity.slug, log, changed: save }, options.ci);
  const faults: ApiFault[] = [];
  async function handle(req: IncomingMessage, res: ServerResponse, gitOnly: boolean): Promise<void> {
    const url = new URL(req.url ?? "/", "http://forge");
    const path = url.pathname;
    const git = GIT_PATH.exec(path);
    if (git) return gitRequest(req, res, git[1]!, git[2]!, url.search.slice(1));
    if (gitOnly) throw new ForgeError(404, "Not Found");
    const served =
      (path.startsWith("/api/") && (await serveApi(req, res, path.slice("/api".length), url.searchParams))) ||
      (path.startsWith("/__forge/") && (await serveLoopAdmin({ pulls, ci }, req, res, path.slice("/__forge".length), url.searchParams))) ||
      (path.startsWith("/__forge/") &&
        (await serveAdmin({ state, root, gitUrl, install, pulls, faults }, req, res, path.slice("/__forge".length), url.searchParams))) ||
      (await serveInstall(install, req, res, url));
    if (!served) throw new ForgeError(404, "Not Found");
    // What a request changed (a repository, an installation, a minted or revoked token) is on
    // disk before the next one is read. Codes and user tokens are not kept: they last minutes.
    if (!ownRoot && req.method !== "GET") saveForgeState(root, state);
  }

  async function serveApi(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
    const fault = takeFault(faults, path);
    if (fault) throw fault;
    return (
      (await serveGitHubApi(api, req, res, path, query)) ||
      servePeople(state, req, res, path) ||
      (await servePulls(pulls, req, res, path, query)) ||
      (await serveIssues(pulls, req, res, path)) ||
      (await serveChecks(pulls, req, res, path, query)) ||
      (await serveGraphQL(pulls, req, res, path))
    );
  }

  async function gitRequest(req: IncomingMessage, res: ServerResponse, fullName: string, rest: string, query: string): Promise<void> {
    const push = isPush(rest, query);
    const token = basicPassword(req);
    const repository = state.repositories.get(fullName);
    const access = token === null ? "none" : state.access(token, fullName);
    // Git asks its credential helper only after a 401 that names Basic.
    const challenge = new ForgeError(401, "Invalid username or token.", { "www-authenticate": 'Basic realm="GitHub"' });
    // Bad credentials are refused even where none are needed, as GitHub does; a live token
    // reads any public repository, limited or not.
    if (token !== null && !state.liveToken(token)) throw challenge;
    if (!repository) throw challenge;
    if (push && access === "read") throw new ForgeError(403, `Permission to ${fullName}.git denied.`);
    if (push ? access !== "write" : repository.private && access === "none") throw challenge;
    // A push's answer ends after what it sets off has begun (pull_request synchronize, CI's run).
    const receive = push && req.method === "POST" && rest.endsWith("/git-receive-pack");
    const before = receive ? await branches(root, fullName) : null;
    const beforeEnd = before
      ? async () => {
          await afterPush({ state, root, events, ci, appSlug: identity.slug, handled: handledPushes }, fullName, before, `${identity.slug}[bot]`);
          save();
        }
      : undefined;
    await serveGit(req, res, { projectRoot: root, pathInfo: `/${fullName}.git${rest}`, query, remoteUser: push ? "x-access-token" : undefined, beforeEnd });
  }

  try {
    const port = await listen("127.0.0.1", options.port ?? 0, false);
    const url = `http://127.0.0.1:${port}`;
    pulls.webUrl = url;
    gitUrl = `${url}/git`;
    if (options.gitHost) gitUrl = `http://${options.gitHost}:${await listen(options.gitHost, 0, true)}/git`;
    return { url, apiUrl: `${url}/api`, gitUrl, adminUrl: `${url}/__forge`, webUrl: url, appId: options.appId, identity, state, webhooks, ci, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The password of HTTP Basic credentials (any user name, as GitHub takes `x-access-token`). */
function basicPassword(req: IncomingMessage): string | null {
  const match = /^basic\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? null : decoded.slice(colon + 1);
}
