import { sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, check, index, integer, jsonb, numeric, pgTable, text, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./columns";
import { guildRepositories } from "./repositories";
import { runs } from "./runs";
import { agents, guilds, organisations } from "./tenancy";

/**
 * A task (TASK-001): one unit of work for one coding agent in one guild repository, keyed
 * `<PREFIX>-<n>` with a counter per repository (OP-TASK-11). Its code lives on the branch
 * `factory/task/<key>` (TASK-005); its status moves as core/tasks/outcome.ts says.
 */
export const tasks = pgTable(
  "tasks",
  {
    id: id(),
    organisationId: uuid("organisation_id")
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    guildId: uuid("guild_id")
      .notNull()
      .references(() => guilds.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    repositoryId: uuid("repository_id")
      .notNull()
      .references(() => guildRepositories.id, { onDelete: "cascade" }),
    number: integer("number").notNull(),
    key: text("key").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    baseBranch: text("base_branch").notNull(),
    status: text("status").notNull().default("queued"),
    // Whether the gateway lets a push rewrite the task branch's published history.
    allowForcePush: boolean("allow_force_push").notNull().default(false),
    // Due no sooner than this (a rate limit's reset, a retry's delay); null: due at once.
    resumeAt: at("resume_at"),
    // When the task last became queued: with resume_at, the order due tasks start in (OP-TASK-4).
    queuedAt: at("queued_at").notNull().defaultNow(),
    // Automatic restarts after sandbox_lost, connect_timeout or provisioning_failed in a row (TASK-029).
    autoResumes: integer("auto_resumes").notNull().default(0),
    pullRequestNumber: integer("pull_request_number"),
    pullRequestUrl: text("pull_request_url"),
    lastRunEndedAt: at("last_run_ended_at"),
    // Set when the task becomes completed, cancelled or failed; cleared when it opens again.
    closedAt: at("closed_at"),
    // The issue that filed it (a label or an @-mention): its pull request says `Closes #<n>`.
    issueNumber: integer("issue_number"),
    issueUrl: text("issue_url"),
    // What the repository's checks said of the branch's head: {head_sha, state, runs, ...}.
    checks: jsonb("checks").notNull().default({}),
    // complete_task came while checks were pending or failing: the pull request is marked
    // ready when they pass (runs.readyRequiresChecks).
    awaitingChecks: boolean("awaiting_checks").notNull().default(false),
    // The task's spend budget over all its runs; null: none but the agent's own limits.
    maxCostUsd: numeric("max_cost_usd", { precision: 14, scale: 6 }),
    // Best of N: the attempts a task runs side by side (1: an ordinary task). Each attempt is
    // a task of its own with parent_task_id and attempt set, on `factory/task/<KEY>/a<i>`.
    attempts: integer("attempts").notNull().default(1),
    parentTaskId: uuid("parent_task_id").references((): AnyPgColumn => tasks.id, { onDelete: "cascade" }),
    attempt: integer("attempt"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique("tasks_repository_number_unique").on(t.repositoryId, t.number),
    // One task per issue (two labels or mentions arriving at once file one).
    uniqueIndex("tasks_repository_issue_unique").on(t.repositoryId, t.issueNumber).where(sql`${t.issueNumber} IS NOT NULL AND ${t.parentTaskId} IS NULL`),
    uniqueIndex("tasks_parent_attempt_unique").on(t.parentTaskId, t.attempt).where(sql`${t.parentTaskId} IS NOT NULL`),
    check("tasks_attempts_check", sql`${t.attempts} between 1 and 4`),
    index("tasks_organisation_status_idx").on(t.organisationId, t.status),
    index("tasks_guild_created_idx").on(t.guildId, t.createdAt),
    check(
      "tasks_status_check",
      sql`${t.status} in ('queued', 'running', 'waiting', 'blocked', 'rate_limited', 'limit_reached', 'in_review', 'completed', 'cancelled', 'failed')`,
    ),
    check("tasks_number_check", sql`${t.number} > 0`),
  ],
);

/** A message for a task's agent (TASK-019): queued until a run delivers it at a turn boundary. */
export const taskMessages = pgTable(
  "task_messages",
  {
    id: id(),
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    content: text("content").notNull(),
    deliveredAt: at("delivered_at"),
    deliveredRunId: uuid("delivered_run_id").references(() => runs.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("task_messages_task_created_idx").on(t.taskId, t.createdAt)],
);

/**
 * A task run (TASK-002): one sandbox lifetime. Its transcript is the run `run_id` (kind
 * `task`), so SSE, replay, projection and usage work as for every run. A row without an
 * outcome is active; the partial unique index keeps a task to one (TASK-008).
 */
export const taskRuns = pgTable(
  "task_runs",
  {
    id: id(),
    taskId: uuid("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    runId: uuid("run_id")
      .notNull()
      .unique()
      .references(() => runs.id, { onDelete: "cascade" }),
    outcome: text("outcome"),
    // When the box answered and the workspace was prepared (null: it never got that far).
    connectedAt: at("connected_at"),
    endedAt: at("ended_at"),
    // The workspace at the end: head commit, commits ahead of base, WIP snapshot, pushed.
    workspace: jsonb("workspace").notNull().default({}),
    // The run report (TASK-022): outcome detail, usage, commits, refusals, summary.
    report: jsonb("report").notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("task_runs_one_active").on(t.taskId).where(sql`${t.outcome} IS NULL`),
    index("task_runs_task_created_idx").on(t.taskId, t.createdAt),
    check(
      "task_runs_outcome_check",
      sql`${t.outcome} in ('completed', 'end_turn', 'handed_off', 'blocked', 'rate_limited', 'limit_reached', 'sandbox_lost', 'connect_timeout', 'provisioning_failed', 'cancelled', 'failed')`,
    ),
  ],
);
