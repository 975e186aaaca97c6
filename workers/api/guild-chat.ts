import { and, eq, inArray, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { guildObject } from "../../bindings/objects";
import { groupMessageWire, listGroupMessages } from "../../core/db/group-chat";
import { agents } from "../../core/db/schema";
import { GroupMessage } from "../../core/validation/group-chat";
import type { AppEnv } from "../http/context";
import { eventStream, failure, jsonBody, lastEventId, ok, operation, pathId, query } from "../http/contract";
import { settle, validationFailed } from "../http/errors";
import { resumePoint, streamQuery } from "../http/query.schema";
import { GuildEvent } from "./events.schema";
import { ChatQuery, GroupMessagePage, GroupPostBody } from "./guild-chat.schema";
import { findGuild } from "./guilds";

/** `/api/guilds/:id/chat` and `/api/guilds/:id/events`: the guild's public group chat. */
export const groupChatRoutes = new Hono<AppEnv>()
  .get(
    "/:id/chat",
    operation({
      operationId: "listGuildChat",
      summary: "The guild's public group chat: the latest rows, or a page after_seq / before_seq, in seq order",
      tag: "Group chat",
      responses: { 200: ok("A page of the chat", GroupMessagePage) },
      notFound: "guild",
      query: true,
    }),
    pathId("guild"),
    query(ChatQuery),
    async (c) => {
      const guild = await findGuild(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      const { limit, after_seq, before_seq } = c.req.valid("query");
      const page = await listGroupMessages(c.get("db"), guild.id, {
        limit,
        ...(after_seq !== undefined ? { afterSeq: after_seq } : {}),
        ...(before_seq !== undefined ? { beforeSeq: before_seq } : {}),
      });
      return c.json({ data: page.rows.map(groupMessageWire), has_more: page.hasMore });
    },
  )
  .post(
    "/:id/chat",
    operation({
      operationId: "postGuildChat",
      summary: "Post to the group chat as the operator; @Name or tagged ids tag agents, and the post wakes the guild's agents",
      tag: "Group chat",
      responses: { 201: ok("The posted row", GroupMessage) },
      notFound: "guild",
      body: true,
      objects: true,
      invalid: "a tagged id that is not an agent of the guild",
    }),
    pathId("guild"),
    jsonBody(GroupPostBody),
    async (c) => {
      const db = c.get("db");
      const guild = await findGuild(db, c.get("organisationId"), c.req.valid("param").id);
      const body = c.req.valid("json");
      if (body.tagged.length > 0) {
        const found = await db
          .select({ id: agents.id })
          .from(agents)
          .where(and(eq(agents.guildId, guild.id), isNull(agents.archivedAt), inArray(agents.id, body.tagged)));
        const known = new Set(found.map((a) => a.id));
        const unknown = body.tagged.flatMap((id, i) => (known.has(id) ? [] : [{ field: `tagged.${i}`, message: "is not an agent of this guild" }]));
        if (unknown.length > 0) throw validationFailed(unknown);
      }
      const posted = settle(
        await guildObject(c.env, guild.id).post(guild.id, {
          authorKind: "operator",
          authorAgentId: null,
          content: body.content,
          tagged: body.tagged,
          depth: 0,
        }),
      );
      return c.json(posted.row, 201);
    },
  )
  .get(
    "/:id/events",
    operation({
      operationId: "streamGuildEvents",
      summary: "Server-Sent Events of the guild: chat rows, deliveries and its agents' script changes",
      tag: "Group chat",
      description:
        "Events: `message` per public row (id: its seq; resume with Last-Event-ID or ?after_seq=), `delivery` when an agent starts or finishes reading, " +
        "`agent.scripts.changed` {agent_id, action: create|delete|clear, name?} when an agent's scripts change, " +
        "first a `gap` {after_seq, resumes_at_seq} when more than 1,000 rows behind (read those with ?before_seq= on the chat), " +
        "and a `status` {guild_id, reading} after the replay. Each event's data has its schema (GuildEvent).",
      responses: { 200: eventStream("The guild's events (GuildEvent)", GuildEvent) },
      notFound: "guild",
      query: true,
      objects: true,
      parameters: [lastEventId],
      errors: {
        429: failure("stream.too_many_subscribers: MAX_GUILD_SUBSCRIBERS streams are open on the guild; or the request budget is spent (rate_limited)"),
      },
    }),
    pathId("guild"),
    query(streamQuery(0)),
    async (c) => {
      const guild = await findGuild(c.get("db"), c.get("organisationId"), c.req.valid("param").id);
      // Last-Event-ID (a reconnecting EventSource) wins over ?after_seq (a client that loaded the chat).
      const resume = resumePoint(c.req.header("last-event-id"), c.req.valid("query").after_seq, 0);
      if (!resume.ok) throw validationFailed([{ field: resume.field, message: resume.message }]);
      const query = resume.after === undefined ? "" : `?after=${resume.after}`;
      return guildObject(c.env, guild.id).fetch(`https://guild/guilds/${guild.id}/events${query}`, { signal: c.req.raw.signal });
    },
  );
