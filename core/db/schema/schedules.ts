import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./columns";
import { agents } from "./tenancy";

/** The random wake window of a schedule: local HH:MM bounds in an IANA zone. */
export interface WakeWindow {
  timezone: string;
  start: string;
  end: string;
  max_wakes: number;
}

/** A routine: a 5-field UTC cron or a random wake window, with the instruction it wakes with. */
export const schedules = pgTable(
  "schedules",
  {
    id: id(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    description: text("description").notNull(),
    instruction: text("instruction").notNull(),
    cron: text("cron"),
    wakeWindow: jsonb("wake_window").$type<WakeWindow>(),
    paused: boolean("paused").notNull().default(false),
    nextRunAt: at("next_run_at"),
    lastRunAt: at("last_run_at"),
    windowFires: integer("window_fires").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("schedules_agent_idx").on(t.agentId),
    index("schedules_due_idx").on(t.nextRunAt).where(sql`not ${t.paused}`),
    check("schedules_trigger_check", sql`(${t.cron} is null) <> (${t.wakeWindow} is null)`),
  ],
);
