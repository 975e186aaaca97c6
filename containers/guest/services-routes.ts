/**
 * The routes of the box-level services and the home archive, by "METHOD /path" (the server
 * looks them up after its own routes).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getHomeArchive, type HomeArchiveOptions, homeReady, putHomeArchive } from "./home-archive";
import { readJson, sendError, sendJson } from "./http-util";
import { ServiceFailed } from "./services";
import { isBrowserLanguage } from "./services-config";

export type GuestRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

async function startServices(req: IncomingMessage, res: ServerResponse, options: HomeArchiveOptions): Promise<void> {
  const read = await readJson(req, res, 64 << 10, { tooLarge: "services.too_large", tooLargeMessage: "body is over 64 KiB", invalid: "services.invalid" });
  if (!read) return;
  const body = read.body as { browser?: unknown; language?: unknown };
  if (typeof body !== "object" || body === null || typeof body.browser !== "boolean") {
    return sendError(res, 400, "services.invalid", "browser must be a boolean");
  }
  const language = body.language ?? "en-US";
  if (typeof language !== "string" || !isBrowserLanguage(language)) {
    return sendError(res, 400, "services.invalid_language", `language must be a language tag such as en-US, got ${JSON.stringify(language)}`);
  }
  try {
    sendJson(res, 200, await options.services.start(body.browser, language));
  } catch (err) {
    if (err instanceof ServiceFailed) return sendError(res, 503, "services.failed", err.message);
    throw err;
  }
}

export function servicesRoutes(options: HomeArchiveOptions): Map<string, GuestRoute> {
  return new Map<string, GuestRoute>([
    ["GET /home/archive", (_req, res, url) => getHomeArchive(res, url, options)],
    ["PUT /home/archive", (req, res, url) => putHomeArchive(req, res, url, options)],
    ["POST /home/ready", async (_req, res, url) => homeReady(res, url, options)],
    ["POST /services/start", (req, res) => startServices(req, res, options)],
    ["POST /services/stop-browser", async (_req, res) => sendJson(res, 200, { stopped: await options.services.stopBrowser() })],
  ]);
}
