/**
 * What the git gateway (durable-objects/sandbox/git-gateway.ts) and a task's object say to
 * each other over RPC (TASK-011, TASK-014), typed here so the sandbox room and the task room
 * share the shapes without importing each other: `authorizeGit(taskId, credential)` answers
 * the grant for the active run's credential (the installation token the gateway forwards
 * with, which never enters the box) or null; `gitRefused(taskId, event)` reports a refused push.
 */
import { type GatewayDeps, gatewayHandler } from "../core/git-gateway/handler";
import { isAncestorOnForge } from "../core/github/compare";
import type { Env } from "./env";
import { taskObject } from "./objects";

export type { GitAuthorization, GitRefusalEvent } from "../core/git-gateway/handler";

/**
 * The gateway's dependencies for one task (core/git-gateway/handler.ts), shared by the
 * Container's outbound handler (durable-objects/sandbox/git-gateway.ts) and the Worker's
 * `/api/git-gateway` route: the task's object vouches for the run's credential and hears of
 * refusals; the forge's compare settles fast-forwards the pack alone cannot prove.
 */
export function gatewayDeps(env: Env, taskId: string): GatewayDeps {
  const task = taskObject(env, taskId);
  const apiUrl = env.GITHUB_API_URL || "https://api.github.com";
  return {
    authorize: (id, credential) => task.authorizeGit(id, credential),
    forgeGitUrl: env.GITHUB_GIT_URL || "https://github.com",
    fetch: (input, init) => fetch(input, init),
    refused: async (event) => {
      // Refs and reasons only: the grant (and its token) is not part of the event.
      console.log(JSON.stringify({ level: "info", operation: "task.git_push_refused", task_id: taskId, refs: event.refs }));
      await task.gitRefused(taskId, event);
    },
    ancestry: (grant, ancestor, commit) => isAncestorOnForge({ apiUrl, token: grant.token, fullName: grant.fullName }, ancestor, commit),
  };
}

/** A gateway path names its task first: `/tasks/<taskId>/<owner>/<repo>.git/…`. */
const TASK_PATH = /^\/tasks\/([A-Za-z0-9_-]{1,64})\//;

/**
 * A box's git request, answered for the task its path names with that task's dependencies
 * (both doors: the Container's outbound handler and the Worker's route); 404 when the path
 * names no task. `refuse` may turn the caller away first, with its answer.
 */
export async function serveTaskGit(request: Request, env: Env, refuse?: (taskId: string) => Promise<Response | null>): Promise<Response> {
  const taskId = TASK_PATH.exec(new URL(request.url).pathname)?.[1];
  if (!taskId) return new Response("not found\n", { status: 404 });
  return (await refuse?.(taskId)) ?? gatewayHandler(request, gatewayDeps(env, taskId));
}
