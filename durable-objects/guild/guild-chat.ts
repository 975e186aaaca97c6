import type { Env } from "../../bindings/env";
import { agentObject } from "../../bindings/objects";
import { type Outcome, refuse } from "../../bindings/outcome";
import type { Database } from "../../core/db/client";
import { appendGroupMessage, type GroupMessageWire, groupMessageWire, groupParticipants, latestGroupSeq, listGroupMessages } from "../../core/db/group-chat";
import type { GuildEventData } from "../../core/events/streams";
import { wakes } from "../../core/group/wake";
import { describeError, logEvent } from "../../core/output/log";
import { taggedAgents } from "../../core/shared/mentions";
import { IdleConnection } from "../common/idle-connection";
import { hubLimits, SseHub } from "../common/sse-hub";

/** A post to the guild's chat, from the operator (the API) or an agent (group_post). */
export interface GroupPost {
  authorKind: "operator" | "agent";
  authorAgentId: string | null;
  content: string;
  /** Agent ids tagged explicitly, beside the `@Name` mentions found in the content. */
  tagged?: string[];
  /** Ping-pong guard (core/group/wake.ts): 0 for the operator. */
  depth: number;
}

/** `delivery` events of the guild stream: an agent started or finished reading the chat. */
export type DeliveryEvent = GuildEventData["delivery"];

/** Events about one of the guild's agents, published on the guild stream. */
export type AgentEvents = Pick<GuildEventData, "agent.scripts.changed">;

/** The highest seq whose deliveries are not yet confirmed queued, with its guild. */
const PENDING = "dispatch.pending";
/** How soon an unconfirmed dispatch is tried again. */
const DISPATCH_RETRY_MS = 10_000;
/**
 * Rows replayed to one reconnecting subscriber at most: one further behind gets a `gap`
 * event naming the rows it skipped (read with GET /chat?before_seq=), then the newest ones.
 */
const REPLAY_MAX = 1_000;

/**
 * The guild object's work (loaded by GuildObject on its first event, guild-object.ts). One
 * object per guild, addressed by the guild id. It is the only writer of the guild's
 * public rows, so their seqs are gap-free and ordered; it fans them out over SSE and
 * queues a delivery on the agent object of every agent a row wakes (GROUP-011).
 *
 * Queuing is confirmed before the pending marker is dropped: should the object stop
 * between committing a row and reaching every agent, its alarm queues them again.
 * Queuing twice is harmless, since each agent delivers whatever lies after its cursor.
 */
export class GuildChat {
  /** The object's one connection: posts and replays share it, never one per subscriber or post. */
  private readonly connection: IdleConnection;
  private readonly hub: SseHub<GuildEventData>;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
  ) {
    this.connection = new IdleConnection(env);
    this.hub = new SseHub<GuildEventData>(
      (guildId, after, limit) => this.withDatabase(async (db) => (await listGroupMessages(db, guildId, { afterSeq: after, limit })).rows.map(groupMessageWire)),
      { ...hubLimits(env.MAX_GUILD_SUBSCRIBERS, env.SSE_QUEUE_BYTES, 500), maxReplayRows: REPLAY_MAX },
      (guildId) => this.withDatabase((db) => latestGroupSeq(db, guildId)),
    );
  }
  /** Deliveries started and not yet completed, so a new subscriber learns who is reading. */
  private readonly reading = new Map<string, DeliveryEvent>();
  /** Posts are appended one at a time, so each takes the next seq. */
  private tail: Promise<unknown> = Promise.resolve();

  /** Appends a public row, streams it and queues the deliveries it causes. */
  async post(guildId: string, post: GroupPost): Promise<Outcome<{ row: GroupMessageWire; tagged_names: string[] }>> {
    const turn = this.tail.then(() => this.append(guildId, post));
    this.tail = turn.catch(() => {});
    return turn;
  }

  /** An agent object reports a delivery starting or ending; the console shows who is reading. */
  async deliveryEvent(guildId: string, event: DeliveryEvent): Promise<void> {
    if (event.state === "started") this.reading.set(event.agent_id, event);
    else if (this.reading.get(event.agent_id)?.run_id === event.run_id) this.reading.delete(event.agent_id);
    this.hub.publish(guildId, "delivery", event);
  }

  /** An event about one of the guild's agents, to whoever watches the guild's stream now (not history, no id). */
  async agentEvent<K extends keyof AgentEvents>(guildId: string, name: K, data: AgentEvents[K]): Promise<void> {
    this.hub.publish(guildId, name, data);
  }

  /**
   * `GET /guilds/:id/events?after=N`: the chat's rows after N (new ones only without N),
   * a `status` naming the deliveries in progress, then live events; 429 past the cap.
   */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const match = /^\/guilds\/([0-9a-f-]{36})\/events$/.exec(url.pathname);
    if (!match) return new Response("not found", { status: 404 });
    const guildId = match[1]!;
    const given = url.searchParams.get("after");
    const after = given !== null && /^-?\d+$/.test(given) ? Number(given) : await this.withDatabase((db) => latestGroupSeq(db, guildId));
    return this.hub.subscribe(guildId, after, () => ({ guild_id: guildId, reading: [...this.reading.values()] }));
  }

  /** Retries a dispatch that was not confirmed. */
  async alarm(): Promise<void> {
    const pending = await this.ctx.storage.get<{ guildId: string; seq: number }>(PENDING);
    if (!pending) return;
    const members = await this.withDatabase((db) => groupParticipants(db, pending.guildId));
    await this.queueDeliveries(
      pending.guildId,
      members.map((m) => m.id),
    );
    await this.confirm(pending.seq);
  }

  private async append(guildId: string, post: GroupPost): Promise<Outcome<{ row: GroupMessageWire; tagged_names: string[] }>> {
    const { row, members } = await this.withDatabase(async (db) => {
      const members = await groupParticipants(db, guildId);
      if (post.authorKind === "agent" && !members.some((m) => m.id === post.authorAgentId)) return { row: null, members };
      const author = post.authorKind === "operator" ? "operator" : members.find((m) => m.id === post.authorAgentId)!.name;
      const tagged = [...new Set([...(post.tagged ?? []), ...taggedAgents(post.content, members)])];
      const row = await appendGroupMessage(db, {
        guildId,
        authorKind: post.authorKind,
        authorAgentId: post.authorAgentId,
        authorName: author,
        content: post.content,
        tagged,
        depth: post.depth,
      });
      return { row, members };
    });
    if (!row) return refuse(409, "agent.not_in_guild", "Only a current agent of the guild can post to its chat");
    await this.ctx.storage.put(PENDING, { guildId, seq: row.seq });
    await this.ctx.storage.setAlarm(Date.now() + DISPATCH_RETRY_MS);
    const message = groupMessageWire(row);
    this.hub.publishRow(guildId, message);
    const woken = members.filter((m) => wakes(row, m.id)).map((m) => m.id);
    this.ctx.waitUntil(
      this.queueDeliveries(guildId, woken)
        .then(() => this.confirm(row.seq))
        .catch((error) => {
          logEvent("error", { operation: "group.dispatch", guild_id: guildId, seq: row.seq, ...describeError(error) });
        }),
    );
    const names = new Map(members.map((m) => [m.id, m.name]));
    return { ok: true, row: message, tagged_names: message.tagged.map((id) => names.get(id) ?? id) };
  }

  private async queueDeliveries(guildId: string, agentIds: string[]): Promise<void> {
    await Promise.all(agentIds.map((id) => agentObject(this.env, id).queueGroupDelivery(id, guildId)));
  }

  /** Drops the pending marker once everything through `seq` is queued. */
  private async confirm(seq: number): Promise<void> {
    const pending = await this.ctx.storage.get<{ seq: number }>(PENDING);
    if (!pending || pending.seq > seq) return;
    await this.ctx.storage.delete(PENDING);
    await this.ctx.storage.deleteAlarm();
  }

  /** The object's one connection, for posts as for replays: never closed under work it serves. */
  private withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
    return this.connection.use(work);
  }
}
