/**
 * The model gateway's doors (decision 0032): a task box's harness calls
 * `<base>/tasks/<taskId>/v1/messages` (Anthropic's Messages API), at the intercepted host in
 * production (durable-objects/sandbox/model-gateway.ts) or the Worker's `/api/model-gateway`
 * route locally (workers/model-gateway.ts). Both pass the call to the task's object, which
 * checks the run's credential and forwards it to the agent's provider with the real key; the
 * key is read there and never leaves the object.
 */
import type { Env } from "./env";
import { taskObject } from "./objects";

/** The task object's path for a model call (its fetch tells it from the run's SSE stream). */
export const MODEL_GATEWAY_PATH = "/model-gateway/";

/** The task the door's path named, set by the door over whatever the box sent. */
export const GATEWAY_TASK_HEADER = "x-guilds-gateway-task";

/** An error as Anthropic's API answers one, which a harness reports and stops on. */
export function anthropicError(status: number, type: string, message: string): Response {
  return Response.json({ type: "error", error: { type, message } }, { status });
}

/** `/tasks/<taskId>/v1/messages` and its `count_tokens`. */
const CALL_PATH = /^\/tasks\/([A-Za-z0-9_-]{1,64})\/v1\/(messages(?:\/count_tokens)?)$/;

/**
 * The credential a harness presents: Claude Code sends its key helper's output both as
 * `x-api-key` and as a bearer token; either is accepted.
 *
 * @example harnessCredential(new Headers({ "x-api-key": "c" })) // "c"
 */
export function harnessCredential(headers: Headers): string | null {
  const key = headers.get("x-api-key");
  if (key) return key;
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "");
  return bearer?.[1] ?? null;
}

/** A box's model call, passed to the task its path names; `refuse` may turn the caller away first. */
export async function serveTaskModel(request: Request, env: Env, refuse?: (taskId: string) => Promise<Response | null>): Promise<Response> {
  const match = CALL_PATH.exec(new URL(request.url).pathname);
  if (!match) return anthropicError(404, "not_found_error", "Not a model gateway path");
  if (request.method !== "POST") {
    return anthropicError(405, "invalid_request_error", "Model calls are POSTs");
  }
  const taskId = match[1]!;
  const refused = await refuse?.(taskId);
  if (refused) return refused;
  const headers = new Headers(request.headers);
  headers.set(GATEWAY_TASK_HEADER, taskId);
  const call = new Request(`https://task${MODEL_GATEWAY_PATH}${match[2]}`, { method: "POST", headers, body: request.body });
  return taskObject(env, taskId).fetch(call);
}
