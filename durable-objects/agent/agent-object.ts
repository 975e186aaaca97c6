import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../workers/env";

/**
 * One object per agent, addressed by the agent id (`idFromName(agentId)`).
 * It is the single writer of the agent's runs: it holds the generation lock and
 * multiplexes every deadline of the agent onto the object's one alarm.
 */
export class AgentObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
  }
}
