import type { Env } from "../../bindings/env";
import { agentObject } from "../../bindings/objects";
import { ApiError } from "../http/errors";
import { forgetViewAccess } from "../views/view-access";

/**
 * Clears the objects of agents about to be deleted, so none of their deadlines fires
 * afterwards. 409 `agent.busy` (and nothing deleted) while one of them generates.
 */
export async function forgetAgents(env: Env, agentIds: string[]): Promise<void> {
  const results = await Promise.all(agentIds.map((id) => agentObject(env, id).forget()));
  for (const agentId of agentIds) forgetViewAccess({ agentId });
  const busy = results.find((r) => !r.forgotten);
  if (busy) {
    throw new ApiError(409, "agent.busy", "An agent is generating; cancel the generation first", { run_id: busy.busyRunId });
  }
}
