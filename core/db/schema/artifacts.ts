import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, unique, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { agents } from "./tenancy";

/**
 * Agent-level artifacts. Scripts are rows of kind `script` under path `scripts`,
 * keyed by the script name; (owner, kind, key) is unique.
 */
export const artifacts = pgTable(
  "artifacts",
  {
    id: id(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    path: text("path").notNull(),
    key: text("key").notNull(),
    description: text("description").notNull(),
    // A validated JSON Schema object, or null for code invoked through script_run.
    parameters: jsonb("parameters"),
    source: text("source").notNull(),
    sourceHash: text("source_hash").notNull(),
    version: integer("version").notNull().default(1),
    // Who wrote this version: {"run_id", "seq"} for an agent, {"person": ...} for an operator.
    author: jsonb("author").notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique("artifacts_owner_key_unique").on(t.agentId, t.kind, t.key), check("artifacts_kind_check", sql`${t.kind} in ('script')`)],
);

/** Every version an artifact has had, for the History view. */
export const artifactVersions = pgTable(
  "artifact_versions",
  {
    id: id(),
    artifactId: uuid("artifact_id")
      .notNull()
      .references(() => artifacts.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    description: text("description").notNull(),
    parameters: jsonb("parameters"),
    source: text("source").notNull(),
    sourceHash: text("source_hash").notNull(),
    author: jsonb("author").notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [unique("artifact_versions_unique").on(t.artifactId, t.version), index("artifact_versions_artifact_idx").on(t.artifactId)],
);
