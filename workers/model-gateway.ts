/**
 * The model gateway as a Worker route, `/api/model-gateway/tasks/<taskId>/v1/messages`, for
 * platforms whose boxes' outbound requests the Container class cannot intercept (a local
 * engine, decision 0012), as the git gateway's route is. The stack gives the boxes this
 * route's address as MODEL_GATEWAY_URL; only the run's credential admits a call. Without
 * MODEL_GATEWAY_URL (production) the route does not exist.
 */
import type { Context } from "hono";
import { serveTaskModel } from "../bindings/model-gateway";
import type { AppEnv } from "./http/context";

export const MODEL_GATEWAY_ROUTE = "/api/model-gateway";

export async function modelGatewayRoute(c: Context<AppEnv>): Promise<Response> {
  if (!c.env.MODEL_GATEWAY_URL) return c.json({ error: { code: "not_found", message: "No such route" } }, 404);
  const url = new URL(c.req.url);
  url.pathname = url.pathname.slice(MODEL_GATEWAY_ROUTE.length);
  return serveTaskModel(new Request(url, c.req.raw), c.env);
}
