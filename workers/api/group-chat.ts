import { and, eq, inArray, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { groupMessageWire, listGroupMessages } from "../../core/db/group-chat";
import { agents } from "../../core/db/schema";
import { fieldIssues } from "../../core/validation/issues";
import { resumePoint } from "../../core/validation/query";
import { ChatQuery, GroupMessage, GroupMessagePage, GroupPostBody } from "../../core/validation/group-chat";
import { guildObject } from "../../bindings/objects";
import { readBody } from "../body";
import type { AppEnv } from "../context";
import { validationFailed } from "../errors";
import type { RouteDoc } from "../openapi";
import { findGuild } from "./guilds";
import { settle } from "./runs";

/** `/api/guilds/:id/chat` and `/api/guilds/:id/events`: the guild's public group chat. */
export const groupChatRoutes = new Hono<AppEnv>()
  .get("/:id/chat", async (c) => {
    const guild = await findGuild(c.get("db"), c.get("organisationId"), c.req.param("id"));
    const query = ChatQuery.safeParse(c.req.query());
    if (!query.success) throw validationFailed(fieldIssues(query.error));
    const page = await listGroupMessages(c.get("db"), guild.id, {
      limit: query.data.limit,
      ...(query.data.after_seq !== undefined ? { afterSeq: query.data.after_seq } : {}),
      ...(query.data.before_seq !== undefined ? { beforeSeq: query.data.before_seq } : {}),
    });
    return c.json({ data: page.rows.map(groupMessageWire), has_more: page.hasMore });
  })
  .post("/:id/chat", async (c) => {
    const db = c.get("db");
    const guild = await findGuild(db, c.get("organisationId"), c.req.param("id"));
    const body = await readBody(c, GroupPostBody);
    if (body.tagged.length > 0) {
      const found = await db.select({ id: agents.id }).from(agents)
        .where(and(eq(agents.guildId, guild.id), isNull(agents.archivedAt), inArray(agents.id, body.tagged)));
      const known = new Set(found.map((a) => a.id));
      const unknown = body.tagged.flatMap((id, i) => (known.has(id) ? [] : [{ field: `tagged.${i}`, message: "is not an agent of this guild" }]));
      if (unknown.length > 0) throw validationFailed(unknown);
    }
    const posted = settle(await guildObject(c.env, guild.id).post(guild.id, {
      authorKind: "operator", authorAgentId: null, content: body.content, tagged: body.tagged, depth: 0,
    }));
    return c.json(posted.row, 201);
  })
  .get("/:id/events", async (c) => {
    const guild = await findGuild(c.get("db"), c.get("organisationId"), c.req.param("id"));
    // Last-Event-ID (a reconnecting EventSource) wins over ?after_seq (a client that loaded the chat).
    const resume = resumePoint(c.req.header("last-event-id"), c.req.query("after_seq"), 0);
    if (!resume.ok) throw validationFailed([{ field: resume.field, message: resume.message }]);
    const query = resume.after === undefined ? "" : `?after=${resume.after}`;
    return guildObject(c.env, guild.id).fetch(`https://guild/guilds/${guild.id}/events${query}`, { signal: c.req.raw.signal });
  });

export const groupChatDocs: RouteDoc[] = [
  { method: "get", path: "/api/guilds/{id}/chat", summary: "The guild's public group chat: the latest rows, or a page after_seq / before_seq, in seq order", tag: "Group chat", response: GroupMessagePage },
  { method: "post", path: "/api/guilds/{id}/chat", summary: "Post to the group chat as the operator; @Name or tagged ids tag agents, and the post wakes the guild's agents", tag: "Group chat", body: GroupPostBody, response: GroupMessage, status: 201 },
  { method: "get", path: "/api/guilds/{id}/events", summary: "Server-Sent Events: `message` per public row (id = seq; Last-Event-ID or after_seq to resume), `delivery` when an agent starts or finishes reading, `gap` {after_seq, resumes_at_seq} first when more than 1,000 rows behind (read those with before_seq); 429 stream.too_many_subscribers past MAX_GUILD_SUBSCRIBERS", tag: "Group chat" },
];
