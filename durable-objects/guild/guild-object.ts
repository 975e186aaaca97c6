/**
 * One object per guild, addressed by the guild id: the only writer of the guild's chat
 * (guild-chat.ts). Its work is imported when the object first starts, so an isolate that
 * starts only to serve the API never evaluates it.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import type { Outcome } from "../../bindings/outcome";
import type { GroupMessageWire } from "../../core/db/group-chat";
import type { AgentEvents, DeliveryEvent, GroupPost, GuildChat } from "./guild-chat";

export type { AgentEvents, DeliveryEvent, GroupPost };

export class GuildObject extends DurableObject<Env> {
  #chat!: GuildChat;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const { GuildChat } = await import("./guild-chat");
      this.#chat = new GuildChat(ctx, env);
    });
  }

  /** The chat's writer, for tests that reach inside through `runInDurableObject`. */
  get chat(): GuildChat {
    return this.#chat;
  }

  /** Appends a public row, streams it and queues the deliveries it causes. */
  post(guildId: string, post: GroupPost): Promise<Outcome<{ row: GroupMessageWire; tagged_names: string[] }>> {
    return this.#chat.post(guildId, post);
  }

  /** An agent started or finished reading the chat: the guild stream says so. */
  deliveryEvent(guildId: string, event: DeliveryEvent): Promise<void> {
    return this.#chat.deliveryEvent(guildId, event);
  }

  /** An event about one of the guild's agents, on the guild stream. */
  agentEvent<K extends keyof AgentEvents>(guildId: string, name: K, data: AgentEvents[K]): Promise<void> {
    return this.#chat.agentEvent(guildId, name, data);
  }

  /** `GET /events`: the guild's chat stream, forwarded by the Worker. */
  override fetch(request: Request): Promise<Response> {
    return this.#chat.fetch(request);
  }

  /** Queues the deliveries of a row whose dispatch was not confirmed. */
  override alarm(): Promise<void> {
    return this.#chat.alarm();
  }
}
