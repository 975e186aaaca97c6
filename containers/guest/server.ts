/**
 * The guest's HTTP routes (node:http, no framework: the images copy one bundled file).
 * Every route but `GET /health` requires the per-sandbox bearer token; a warm guest answers
 * nothing but `/health` and `POST /claim` until it is claimed (claim.ts).
 */
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type BrowserDriverOptions, browserRoute } from "./browser";
import { type GuestIdentity, parseClaim } from "./claim";
import { running, startExec } from "./exec";
import { DEFAULT_EXEC_LIMITS, type ExecLimits, parseExecRequest } from "./exec-request";
import { deleteFile, getFile, listFiles, moveFile, putFile } from "./files";
import { HomeState } from "./home-state";
import { readJson, sendError, sendJson } from "./http-util";
import { checkAbsolutePath } from "./paths";
import type { Services } from "./services";
import { type GuestRoute, servicesRoutes } from "./services-routes";
import { DEFAULT_VOLUME, volumeRoutes } from "./volume-archive";
import { measureWorkspace } from "./workspace-size";

export const GUEST_VERSION = "1";

export interface GuestOptions {
  /** The token the guest accepts now and whether it awaits a claim; the claim changes both. */
  identity: GuestIdentity;
  /** The environment commands inherit (the guest's own, its settings removed, a claim's env merged in). */
  baseEnv: NodeJS.ProcessEnv;
  /** Default cwd of commands and default root of the workspace size. */
  home: string;
  maxFileBytes: number;
  execLimits?: Partial<Omit<ExecLimits, "defaultCwd">>;
  /** The desktop and Chromium, stopped before the home is archived or restored. */
  services: Services;
  /** The largest home archive the guest saves or restores, whatever a request asks. */
  maxArchiveBytes: number;
  /** Where the browser tool finds Chromium and Playwright (the guest's settings). */
  browser?: BrowserDriverOptions;
  /** Whether the home was restored, shared with the save on shutdown; a fresh one by default. */
  homeState?: HomeState;
  /** The task volume's root for its archive and restore (default /data). */
  volume?: string;
  /** Further routes by "METHOD /path", e.g. the browser's. */
  routes?: Map<string, GuestRoute>;
}

const EXEC_KILL = /^\/exec\/([0-9a-f-]{36})\/kill$/;

export function createGuestServer(options: GuestOptions): Server {
  const { identity } = options;
  const limits: ExecLimits = { ...DEFAULT_EXEC_LIMITS, ...options.execLimits, defaultCwd: options.home };
  const routes = new Map([
    ...servicesRoutes({
      home: options.home,
      services: options.services,
      maxArchiveBytes: options.maxArchiveBytes,
      state: options.homeState ?? new HomeState(options.maxArchiveBytes),
    }),
    ...volumeRoutes({ root: options.volume ?? DEFAULT_VOLUME, maxArchiveBytes: options.maxArchiveBytes }),
    ...(options.routes ?? []),
  ]);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://guest");
    const method = req.method ?? "GET";
    if (method === "GET" && url.pathname === "/health") return sendJson(res, 200, { ok: true, version: GUEST_VERSION });
    if (method === "POST" && url.pathname === "/claim") return claim(req, res);
    if (!identity.accepts(req.headers.authorization)) return sendError(res, 401, "auth.invalid", "missing or wrong bearer token");
    // A pool box has no tenant yet: nothing may run or be read before the claim gives it one.
    if (identity.unclaimed) return sendError(res, 409, "guest.unclaimed", "this warm guest has not been claimed yet");

    if (method === "POST" && url.pathname === "/exec") return exec(req, res);
    const kill = EXEC_KILL.exec(url.pathname);
    if (method === "POST" && kill) {
      const found = running.get(kill[1]!);
      if (!found) return sendError(res, 404, "exec.not_found", `no running command ${kill[1]}`);
      found.kill();
      return sendJson(res, 200, { id: found.id, killing: true });
    }
    if (url.pathname === "/files") {
      if (method === "PUT") return putFile(req, res, url, options.maxFileBytes);
      if (method === "GET") return getFile(res, url, options.maxFileBytes);
      if (method === "DELETE") return deleteFile(res, url);
    }
    if (method === "POST" && url.pathname === "/files/move") return moveFile(req, res);
    if (method === "GET" && url.pathname === "/files/list") return listFiles(res, url);
    if (method === "GET" && url.pathname === "/workspace/size") return workspaceSize(res, url);
    if (method === "POST" && url.pathname === "/browser") return browserRoute(req, res, options.browser);
    const added = routes.get(`${method} ${url.pathname}`);
    if (added) return added(req, res, url);
    sendError(res, 404, "route.not_found", `no route ${method} ${url.pathname}`);
  }

  async function claim(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!identity.mayClaim(req.headers.authorization)) return sendError(res, 401, "auth.invalid", "missing or wrong bearer token");
    if (!identity.warm) return sendError(res, 409, "guest.not_warm", "this guest was not started warm (GUEST_WARM) and cannot be claimed");
    if (identity.claimed) return sendError(res, 409, "guest.already_claimed", "this guest has already been claimed");
    const read = await readJson(req, res, 1 << 20, {
      tooLarge: "guest.claim_too_large",
      tooLargeMessage: "claim body is over 1 MiB",
      invalid: "guest.invalid_claim",
    });
    if (!read) return;
    const parsed = parseClaim(read.body);
    if (!parsed.ok) return sendError(res, 400, "guest.invalid_claim", parsed.message);
    // Checked again: another claim may have passed while this body was read.
    const outcome = identity.claim(parsed.claim);
    if (outcome !== "claimed") return sendError(res, 409, "guest.already_claimed", "this guest has already been claimed");
    sendJson(res, 200, { claimed: true });
  }

  async function exec(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const read = await readJson(req, res, 1 << 20, { tooLarge: "exec.too_large", tooLargeMessage: "exec body is over 1 MiB", invalid: "exec.invalid" });
    if (!read) return;
    const parsed = parseExecRequest(read.body, limits);
    if (!parsed.ok) return sendError(res, 400, parsed.code, parsed.message);
    try {
      if (!(await stat(parsed.request.cwd)).isDirectory()) return sendError(res, 400, "cwd.not_directory", `${parsed.request.cwd} is not a directory`);
    } catch {
      return sendError(res, 400, "cwd.not_found", `${parsed.request.cwd} does not exist`);
    }
    const id = randomUUID();
    res.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store", "x-exec-id": id });
    res.flushHeaders();
    const handle = startExec(parsed.request, options.baseEnv, (text) => res.write(text), id);
    // The caller hanging up cancels the command (and everything it started).
    res.on("close", () => handle.kill());
    if (res.destroyed) handle.kill();
    await handle.done;
    res.end();
  }

  async function workspaceSize(res: ServerResponse, url: URL): Promise<void> {
    const checked = checkAbsolutePath(url.searchParams.get("path") ?? options.home);
    if (!checked.ok) return sendError(res, 400, checked.code, checked.message);
    try {
      if (!(await stat(checked.path)).isDirectory()) return sendError(res, 400, "path.not_directory", `${checked.path} is not a directory`);
    } catch {
      return sendError(res, 404, "path.not_found", `${checked.path} does not exist`);
    }
    const started = performance.now();
    const size = await measureWorkspace(checked.path);
    sendJson(res, 200, { path: checked.path, bytes: size.bytes, files: size.files, duration_ms: Math.round(performance.now() - started) });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, "guest.error", (err as Error).message ?? "internal error");
      else res.destroy();
    });
  });
  return server;
}
