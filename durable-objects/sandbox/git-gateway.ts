/**
 * The git gateway as the task's box reaches it (TASK-014, TASK-017): its git remote is
 * `http://git.gateway.internal/tasks/<taskId>/<owner>/<repo>.git`, a host only this Worker
 * answers, through the Container's outbound handler. Only the task's own box gets through
 * (the runtime names the calling container); the run's credential is checked by the task's
 * object, which hands back the installation token the gateway forwards with
 * (core/git-gateway/handler.ts). The token never enters the box.
 */
import type { OutboundHandlerContext } from "@cloudflare/containers";
import type { Env } from "../../bindings/env";
import { serveTaskGit } from "../../bindings/task-gateway";
import { GATEWAY_HOST, gatewayRemote, taskBoxName } from "../../core/tasks/credential";
import { boxHeldBy } from "./holder";

export { GATEWAY_HOST, gatewayRemote, taskBoxName };

export function gitGateway(request: Request, env: Env, ctx: OutboundHandlerContext): Promise<Response> {
  return serveTaskGit(request, env, async (taskId) =>
    (await boxHeldBy(env, ctx, taskBoxName(taskId), "StandardSandbox")) ? null : new Response("not this task's box\n", { status: 403 }),
  );
}
