import { sql } from "drizzle-orm";
import { bigserial, check, index, integer, jsonb, numeric, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./columns";
import { schedules } from "./schedules";
import { agents, organisations } from "./tenancy";

/** A run: a direct chat, a group delivery, a schedule wake-up or a task run of one agent. */
export const runs = pgTable(
  "runs",
  {
    id: id(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    status: text("status").notNull().default("active"),
    title: text("title"),
    scheduleId: uuid("schedule_id").references(() => schedules.id, { onDelete: "set null" }),
    // The immutable snapshot taken at creation (model settings, flags, tool schemas, secrets by name).
    snapshot: jsonb("snapshot").notNull().default({}),
    // Generation number of the latest generation; 0 while the run is idle since creation.
    generation: integer("generation").notNull().default(0),
    errors: jsonb("errors").notNull().default([]),
    metadata: jsonb("metadata").notNull().default({}),
    archivedAt: at("archived_at"),
    completedAt: at("completed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("runs_agent_created_idx").on(t.agentId, t.createdAt),
    index("runs_schedule_idx").on(t.scheduleId),
    check("runs_kind_check", sql`${t.kind} in ('direct', 'group', 'schedule', 'task')`),
    check("runs_status_check", sql`${t.status} in ('active', 'completed')`),
  ],
);

/**
 * The append-only transcript. `seq` never changes and `payload` is immutable once
 * inserted; metadata (usage, latency, reasoning, tool timings) sits beside it and is
 * never sent to the model.
 */
export const messages = pgTable(
  "messages",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    generation: integer("generation"),
    role: text("role").notNull(),
    payload: jsonb("payload").notNull(),
    metadata: jsonb("metadata").notNull().default({}),
    costUsd: numeric("cost_usd", { precision: 14, scale: 6 }),
    // Token count of the projected row, computed once at insert so a later wake never recounts.
    tokenCount: integer("token_count"),
    createdAt: createdAt(),
  },
  (t) => [unique("messages_run_seq_unique").on(t.runId, t.seq), check("messages_role_check", sql`${t.role} in ('system', 'user', 'assistant', 'tool')`)],
);

/** Where an attachment's bytes live in object storage (the ATTACHMENTS bucket). */
export const attachmentKey = (id: string) => `attachments/${id}`;

/** Uploaded files referenced from user rows (metadata.attachments); bytes live in object storage. */
export const attachments = pgTable(
  "attachments",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    filename: text("filename").notNull(),
    mime: text("mime").notNull(),
    kind: text("kind").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    storageKey: text("storage_key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("attachments_organisation_idx").on(t.organisationId)],
);

/** Durable file mutations, attributed to the run and tool call that made them. */
export const fileChanges = pgTable(
  "file_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: uuid("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    toolCallId: text("tool_call_id"),
    // The repository's folder under /home/agent/repos, as metadata.repos names it.
    repository: text("repository").notNull().default(""),
    path: text("path").notNull(),
    // git's change kind: 'added', 'modified', 'deleted', 'renamed', 'copied', 'type_changed'.
    operation: text("operation").notNull(),
    oldPath: text("old_path"),
    // null for a binary file, which git counts no lines of.
    insertions: integer("insertions"),
    deletions: integer("deletions"),
    createdAt: createdAt(),
  },
  (t) => [index("file_changes_run_idx").on(t.runId), index("file_changes_run_repository_idx").on(t.runId, t.repository)],
);
