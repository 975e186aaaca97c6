/**
 * The organisation's inbox of GitHub webhook deliveries (addressed by the organisation id):
 * the door stores each delivery `pending` and calls `received`; the inbox acts on the pending
 * rows in receipt order (inbox.ts). Its work is imported when the object first starts, so an
 * isolate that starts only to serve the API never evaluates it.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import type { ForgeInbox } from "./inbox";

export class ForgeInboxObject extends DurableObject<Env> {
  /** The clock claims and outcomes read; tests replace it through `runInDurableObject`. */
  now: () => number = () => Date.now();
  #inbox!: ForgeInbox;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { ForgeInbox } = await import("./inbox");
      this.#inbox = new ForgeInbox(ctx, env, this);
    });
  }

  /**
   * A delivery of the organisation was stored pending: returns at once, once the inbox is
   * sure to act on it (an alarm is set; the drain has begun).
   */
  received(organisationId: string): Promise<void> {
    return this.#inbox.received(organisationId);
  }

  /** Drains the pending deliveries; retried by the runtime when it throws. */
  override alarm(): Promise<void> {
    return this.#inbox.alarm();
  }
}
