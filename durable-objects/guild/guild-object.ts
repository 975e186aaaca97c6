import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import type { GuildCore } from "./guild-core";

export type { AgentEvents, DeliveryEvent, GroupPost } from "./guild-core";

/**
 * One object per guild (see GuildCore, which does the work). As with AgentObject, the
 * Worker's main module evaluates only this class; the core and what it imports load when
 * the isolate's first guild object is constructed, before any event reaches it.
 */
export class GuildObject extends DurableObject<Env> {
  private core!: GuildCore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { GuildCore } = await import("./guild-core");
      this.core = new GuildCore(ctx, env);
    });
  }

  post(...args: Parameters<GuildCore["post"]>): ReturnType<GuildCore["post"]> {
    return this.core.post(...args);
  }
  deliveryEvent(...args: Parameters<GuildCore["deliveryEvent"]>): ReturnType<GuildCore["deliveryEvent"]> {
    return this.core.deliveryEvent(...args);
  }
  agentEvent(...args: Parameters<GuildCore["agentEvent"]>): ReturnType<GuildCore["agentEvent"]> {
    return this.core.agentEvent(...args);
  }
  override fetch(request: Request): ReturnType<GuildCore["fetch"]> {
    return this.core.fetch(request);
  }
  override alarm(): ReturnType<GuildCore["alarm"]> {
    return this.core.alarm();
  }
}
