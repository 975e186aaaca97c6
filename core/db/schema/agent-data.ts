import { bigserial, index, jsonb, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { runs } from "./runs";
import { agents } from "./tenancy";

/** Agent notes (note_* tools): small named texts the agent keeps across runs. */
export const notes = pgTable(
  "notes",
  {
    id: id(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    body: text("body").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique("notes_agent_title_unique").on(t.agentId, t.title)],
);

/** Time-ordered records (record_* tools); routines read them with `since`. */
export const records = pgTable(
  "records",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    kind: text("kind").notNull().default("note"),
    content: text("content").notNull(),
    data: jsonb("data"),
    runId: uuid("run_id").references(() => runs.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("records_agent_created_idx").on(t.agentId, t.createdAt)],
);

/** The agent's Memory, written by memory_write and composed into <memory> at run creation. */
export const memories = pgTable("memories", {
  agentId: uuid("agent_id")
    .primaryKey()
    .references(() => agents.id, { onDelete: "cascade" }),
  content: text("content").notNull().default(""),
  updatedAt: updatedAt(),
});
