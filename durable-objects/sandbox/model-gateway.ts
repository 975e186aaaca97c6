/**
 * The model gateway as a task box's harness reaches it in production (decision 0032):
 * `http://model.gateway.internal/tasks/<taskId>/v1/messages`, a host only this Worker answers,
 * through the Container's outbound handler. Only the task's own box gets through (the
 * runtime names the calling container); the task's object checks the run's credential.
 */
import type { OutboundHandlerContext } from "@cloudflare/containers";
import type { Env } from "../../bindings/env";
import { anthropicError, serveTaskModel } from "../../bindings/model-gateway";
import { taskBoxName } from "../../core/tasks/credential";
import { boxHeldBy } from "./holder";

export function modelGateway(request: Request, env: Env, ctx: OutboundHandlerContext): Promise<Response> {
  return serveTaskModel(request, env, async (taskId) =>
    (await boxHeldBy(env, ctx, taskBoxName(taskId), "StandardSandbox")) ? null : anthropicError(403, "permission_error", "not this task's box"),
  );
}
