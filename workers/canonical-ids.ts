import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { isUuid } from "../core/validation/fields";
import type { AppEnv } from "./http/context";
import { errorResponse, notFound } from "./http/errors";

/**
 * One canonical form per id, at the edge: every `:id` (and `:<thing>_id`) of every route is
 * parsed as a uuid before any middleware or handler runs. A malformed one is 404
 * `<resource>.not_found` before any database or object call; one written with capitals is
 * answered as its lower-case form, the request dispatched again under the canonical path,
 * so no handler, object name or box ever sees two spellings of one id (an agent's object
 * and box are named by its id: `AGENT` and `agent` would be two of each).
 *
 * @example
 *   app.use("/api/*", canonicalIds(() => app.routes, (request, c) => app.fetch(request, c.env, c.executionCtx)));
 */

/** The resource a malformed id names in its 404, by the path segment before it or the parameter's name. */
const RESOURCES: Record<string, string> = {
  agents: "agent",
  guilds: "guild",
  runs: "run",
  schedules: "schedule",
  secrets: "secret",
  tokens: "token",
  attachments: "attachment",
  connections: "github_connection",
  repositories: "repository",
  tasks: "task",
  grant_id: "secret_grant",
  // Under /api/mcp, by the area and the segment or parameter: MCP's own resources.
  "mcp/connections": "mcp_connection",
  "mcp/grant_id": "mcp_grant",
};

interface Pattern {
  method: string;
  segments: string[];
  /** Index of each id segment and the resource it names. */
  ids: { at: number; resource: string }[];
}

const isIdParam = (segment: string) => segment === ":id" || /^:[a-z]+_id$/.test(segment);

function compile(route: { method: string; path: string }): Pattern | null {
  const segments = route.path.split("/").filter(Boolean);
  const ids = segments.flatMap((segment, at) => {
    if (!isIdParam(segment)) return [];
    const area = segments[1];
    const resource =
      RESOURCES[`${area}/${segment.slice(1)}`] ??
      RESOURCES[`${area}/${segments[at - 1] ?? ""}`] ??
      RESOURCES[segment.slice(1)] ??
      RESOURCES[segments[at - 1] ?? ""] ??
      "route";
    return [{ at, resource }];
  });
  return ids.length ? { method: route.method, segments, ids } : null;
}

function matches(pattern: Pattern, method: string, segments: string[]): boolean {
  if (pattern.method !== method && pattern.method !== "ALL") return false;
  for (let i = 0; i < pattern.segments.length; i++) {
    const expected = pattern.segments[i]!;
    if (expected === "*") return true;
    const actual = segments[i];
    if (actual === undefined || (!expected.startsWith(":") && expected !== actual)) return false;
  }
  return pattern.segments.length === segments.length;
}

/**
 * The middleware over the app's routes (read on first use, once all are registered);
 * `dispatch` answers a request under its canonical path.
 */
export function canonicalIds(
  routes: () => readonly { method: string; path: string }[],
  dispatch: (request: Request, c: Context<AppEnv>) => Response | Promise<Response>,
) {
  let patterns: Pattern[] | undefined;
  return createMiddleware<AppEnv>(async (c, next) => {
    patterns ??= routes().flatMap((route) => compile(route) ?? []);
    const url = new URL(c.req.url);
    const segments = url.pathname.split("/").filter(Boolean);
    // HEAD is answered by the GET route.
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    const pattern = patterns.find((p) => matches(p, method, segments));
    if (!pattern) return next();
    let changed = false;
    for (const { at, resource } of pattern.ids) {
      const id = segments[at]!;
      if (!isUuid(id)) return errorResponse(c, notFound(resource));
      if (id !== id.toLowerCase()) {
        segments[at] = id.toLowerCase();
        changed = true;
      }
    }
    if (!changed) return next();
    url.pathname = `/${segments.join("/")}${url.pathname.endsWith("/") ? "/" : ""}`;
    return dispatch(new Request(url, c.req.raw), c);
  });
}
