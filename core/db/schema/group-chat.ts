import { sql } from "drizzle-orm";
import { bigserial, check, index, integer, jsonb, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { at, createdAt } from "./columns";
import { agents, guilds } from "./tenancy";

/** Public rows of a guild's group chat, in the guild's own sequence. */
export const groupMessages = pgTable(
  "group_messages",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    guildId: uuid("guild_id")
      .notNull()
      .references(() => guilds.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    authorKind: text("author_kind").notNull(),
    authorAgentId: uuid("author_agent_id").references(() => agents.id, { onDelete: "set null" }),
    authorName: text("author_name").notNull(),
    content: text("content").notNull(),
    // Agent ids tagged in this row.
    tagged: jsonb("tagged").notNull().default([]),
    // Hops from the post that started the exchange: 0 for the operator (and for agents
    // outside a group run); a reply in a group run is one more than what woke it.
    depth: integer("depth").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [unique("group_messages_guild_seq_unique").on(t.guildId, t.seq), check("group_messages_author_check", sql`${t.authorKind} in ('operator', 'agent')`)],
);

/** How far each agent has been delivered its guild's group chat. */
export const groupCursors = pgTable(
  "group_cursors",
  {
    agentId: uuid("agent_id")
      .primaryKey()
      .references(() => agents.id, { onDelete: "cascade" }),
    guildId: uuid("guild_id")
      .notNull()
      .references(() => guilds.id, { onDelete: "cascade" }),
    deliveredThroughSeq: integer("delivered_through_seq").notNull().default(0),
    updatedAt: at("updated_at").notNull().defaultNow(),
  },
  (t) => [index("group_cursors_guild_idx").on(t.guildId)],
);
