/**
 * The home saved by the box itself when the platform stops it (SIGTERM: a host restart,
 * a rollout, the class's own sleep). The guest PUTs its archive to GUEST_HOME_SAVE_URL, an
 * address only this Worker answers: the Container's outbound handler for HOME_SAVE_HOST
 * writes it to R2, so the box never holds a storage key. A box can save only its own
 * agent's home: the runtime names the calling container, and it must be the agent's.
 */
import type { OutboundHandlerContext } from "@cloudflare/containers";
import type { Env } from "../../bindings/env";
import { homeCapBytes } from "../../core/sandbox/workspace";
import { boxHeldBy } from "./holder";
import { SandboxHomes } from "./home";

/** Never resolved by DNS: the Container class intercepts it before it leaves the box. */
export const HOME_SAVE_HOST = "home-save.sandbox.internal";

/** @example homeSaveUrl("0b7e…") // "http://home-save.sandbox.internal/homes/0b7e…" */
export const homeSaveUrl = (agentId: string) => `http://${HOME_SAVE_HOST}/homes/${agentId}`;

const PATH = /^\/homes\/([0-9a-f-]{36})$/;

export async function saveHomeOnExit(request: Request, env: Env, ctx: OutboundHandlerContext): Promise<Response> {
  const agentId = PATH.exec(new URL(request.url).pathname)?.[1];
  if (request.method !== "PUT" || !agentId || !request.body) return new Response("not found", { status: 404 });
  if (!(await boxHeldBy(env, ctx, agentId))) return new Response("not this box's agent", { status: 403 });
  // The box keeps the agent's own cap (the restore sent it); the host's limit bounds what arrives here.
  const bytes = await new SandboxHomes(env.SANDBOX_HOMES).save(agentId, request.body, homeCapBytes(Number.MAX_SAFE_INTEGER, env.WORKSPACE_MAX_MIB));
  console.log(JSON.stringify({ level: "info", operation: "sandbox.home_saved_on_exit", agent_id: agentId, bytes }));
  return new Response(null, { status: 204 });
}
