/**
 * The git gateway as a Worker route, `/api/git-gateway/tasks/<taskId>/<owner>/<repo>.git/…`,
 * for platforms whose boxes' outbound requests the Container class cannot intercept (a local
 * engine: its stand-in sidecar does not intercept, decision 0012). The stack then gives the
 * boxes this route's address as GIT_GATEWAY_URL. The handler and its checks are the
 * intercepted host's (bindings/task-gateway.ts, core/git-gateway); only the run's credential
 * admits a box here, since no runtime names the calling container. Without GIT_GATEWAY_URL
 * (production) the route does not exist.
 */
import type { Context } from "hono";
import { serveTaskGit } from "../bindings/task-gateway";
import type { AppEnv } from "./http/context";

export const GIT_GATEWAY_ROUTE = "/api/git-gateway";

export async function gitGatewayRoute(c: Context<AppEnv>): Promise<Response> {
  if (!c.env.GIT_GATEWAY_URL) return c.json({ error: { code: "not_found", message: "No such route" } }, 404);
  const url = new URL(c.req.url);
  url.pathname = url.pathname.slice(GIT_GATEWAY_ROUTE.length);
  return serveTaskGit(new Request(url, c.req.raw), c.env);
}
