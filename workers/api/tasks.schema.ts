import * as z from "zod";
import { TaskChecks } from "../../core/events/streams";
import { MAX_ATTEMPTS, MIN_ATTEMPTS } from "../../core/tasks/attempts";
import { MAX_TASK_BUDGET_USD, validBudget } from "../../core/tasks/budget";
import { TASK_OUTCOMES, TASK_STATUSES, type TaskStatus } from "../../core/tasks/outcome";
import { TASK_SETTING_DEFAULTS, TaskSettingsPatch } from "../../core/tasks/settings";
import { idInput, oneLine } from "../../core/validation/fields";
import { ListQuery, pageOf } from "../http/page.schema";
import { branchName } from "./repositories.schema";

/** Tasks on the wire (TASK-001..038): one unit of work for a coding agent in a guild repository. */

export const TaskStatusSchema = z.enum(TASK_STATUSES).meta({ id: "TaskStatus" });
export const TaskOutcomeSchema = z.enum(TASK_OUTCOMES).meta({ id: "TaskOutcome" });

/** A task's budget (issue 33): what all its runs may spend on model calls together. */
const budget = z
  .number()
  .refine(validBudget, `must be a positive amount of USD, at most ${MAX_TASK_BUDGET_USD}, with at most 6 decimals`)
  .describe(`USD all the task's runs may spend on model calls together: positive, at most ${MAX_TASK_BUDGET_USD}, up to 6 decimals`);

/** Body of `POST /api/guilds/:id/tasks`. */
export const TaskCreate = z
  .strictObject({
    title: oneLine(200),
    description: z.string().max(20_000).default(""),
    agent_id: idInput().describe("A coding agent of the guild"),
    repository_id: idInput().describe("A repository of the guild"),
    base_branch: branchName.optional().describe("The branch the task starts from and its pull request targets; the repository's default branch when absent"),
    allow_force_push: z.boolean().default(false).describe("Whether pushes may rewrite the task branch's published history"),
    max_cost_usd: budget.optional().describe("The task's budget: reaching it ends the run limit_reached, its work pushed; none when absent"),
    attempts: z
      .int()
      .min(MIN_ATTEMPTS)
      .max(MAX_ATTEMPTS)
      .default(1)
      .describe(
        "Best of N: 2..4 attempts run side by side, each a task on factory/task/<KEY>/a<i>; the pull request comes from the one whose checks pass with the smallest diff",
      ),
  })
  .meta({ id: "TaskCreate" });

/** Body of `PATCH /api/tasks/:id`: the fields it names. */
export const TaskUpdate = z
  .strictObject({
    max_cost_usd: budget.nullable().describe("The task's budget; null removes it. Raising it over the spend queues a task its budget stopped again"),
  })
  .partial()
  .meta({ id: "TaskUpdate" });

const statusList = z
  .string()
  .max(200)
  .transform((value, ctx) => {
    const parts = value.split(",").filter(Boolean);
    const bad = parts.find((part) => !(TASK_STATUSES as readonly string[]).includes(part));
    if (bad !== undefined) {
      ctx.addIssue({ code: "custom", message: `unknown status ${JSON.stringify(bad.slice(0, 40))}; one of ${TASK_STATUSES.join(", ")}` });
      return z.NEVER;
    }
    return [...new Set(parts)] as TaskStatus[];
  })
  .meta({ type: "string", description: "Comma-separated statuses, e.g. queued,running; all when absent" } as z.GlobalMeta);

/** Query of `GET /api/guilds/:id/tasks`. */
export const TaskListQuery = ListQuery.extend({ status: statusList.optional() });

export const Task = z
  .object({
    id: z.uuid(),
    key: z.string().describe("<PREFIX>-<n>: the repository's name and its own counter"),
    number: z.int(),
    organisation_id: z.uuid(),
    guild_id: z.uuid(),
    agent_id: z.uuid(),
    repository_id: z.uuid(),
    title: z.string(),
    description: z.string(),
    base_branch: z.string(),
    branch: z.string().describe("factory/task/<KEY>: where the task's code lives"),
    status: TaskStatusSchema,
    allow_force_push: z.boolean(),
    resume_at: z.iso.datetime().nullable().describe("Due no sooner than this (a rate limit's reset, a retry's delay)"),
    queued_at: z.iso.datetime(),
    auto_resumes: z.int(),
    max_cost_usd: z.number().nullable().describe("The task's budget in USD; null: none"),
    spend_usd: z.number().describe("What all the task's runs spent on model calls, in USD"),
    pull_request: z.object({ number: z.int(), url: z.string() }).nullable(),
    checks: TaskChecks.nullable().describe("The checks of the branch's head when they were last read; null before any"),
    awaiting_checks: z.boolean().describe("The task completed and waits for its checks: its pull request is marked ready when they pass"),
    last_run_ended_at: z.iso.datetime().nullable(),
    closed_at: z.iso.datetime().nullable(),
    best_of: z.int().describe("The attempts filed: 1 for an ordinary task (and for an attempt), 2..4 for a best-of-N parent, which never runs itself"),
    parent_task_id: z.uuid().nullable().describe("For an attempt: the best-of-N task it is an attempt of"),
    attempt: z.int().nullable().describe("For an attempt: its number, 1..N"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Task" });

export const TaskPage = pageOf(Task, "TaskPage");

export const TaskRun = z
  .object({
    id: z.uuid(),
    task_id: z.uuid(),
    run_id: z.uuid().describe("The run holding the transcript: GET /api/runs/:id and its events"),
    outcome: TaskOutcomeSchema.nullable().describe("null while the run is active"),
    connected_at: z.iso.datetime().nullable(),
    ended_at: z.iso.datetime().nullable(),
    workspace: z.record(z.string(), z.unknown()),
    report: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "TaskRun" });

export const TaskRunPage = pageOf(TaskRun, "TaskRunPage");

/** One attempt of a best-of-N task, as its parent's page shows it side by side. */
export const TaskAttempt = z
  .object({
    id: z.uuid(),
    key: z.string().describe("<PARENT_KEY>/a<i>"),
    attempt: z.int(),
    status: TaskStatusSchema,
    branch: z.string(),
    checks: z.enum(["none", "pending", "passing", "failing"]).describe("What the repository's checks said of the attempt's branch"),
    diffstat: z
      .object({ additions: z.int(), deletions: z.int() })
      .nullable()
      .describe("The branch against the base when the attempt last ended; null before (or without a branch)"),
    spend_usd: z.number().describe("The model cost of the attempt's runs"),
    won: z.boolean().describe("The attempt the pull request was opened from"),
  })
  .meta({ id: "TaskAttempt" });

/** `GET /api/tasks/:id`: the task, with what its page shows of its runs (and, for a best-of-N task, its attempts). */
export const TaskDetail = Task.extend({
  runs: z.object({
    total: z.int(),
    active: TaskRun.nullable(),
    latest: TaskRun.nullable(),
  }),
  attempts: z.array(TaskAttempt).describe("A best-of-N task's attempts by number; empty for any other task"),
}).meta({ id: "TaskDetail" });

export const TaskMessage = z
  .object({
    id: z.uuid(),
    task_id: z.uuid(),
    content: z.string(),
    delivered_at: z.iso.datetime().nullable().describe("null until a run hands it to the agent at a turn boundary"),
    delivered_run_id: z.uuid().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "TaskMessage" });

export const TaskMessagePage = pageOf(TaskMessage, "TaskMessagePage");

/** Body of `POST /api/tasks/:id/messages`. */
export const TaskMessageCreate = z
  .strictObject({
    content: z
      .string()
      .max(200_000)
      .refine((text) => text.trim().length > 0, "must not be empty"),
  })
  .meta({ id: "TaskMessageCreate" });

/** The organisation's effective task settings: every key, defaults filled in (whole numbers, and booleans where the default is one). */
export const TaskSettingsSchema = z
  .object(
    Object.fromEntries(Object.entries(TASK_SETTING_DEFAULTS).map(([key, value]) => [key, typeof value === "boolean" ? z.boolean() : z.int()])) as {
      [K in keyof typeof TASK_SETTING_DEFAULTS]: (typeof TASK_SETTING_DEFAULTS)[K] extends boolean ? z.ZodBoolean : z.ZodInt;
    },
  )
  .meta({ id: "TaskSettings" });

/** A PATCH of the organisation's task settings: the keys it names, each checked (core/tasks/settings.ts). */
export const TaskSettingsUpdate = TaskSettingsPatch.meta({ id: "TaskSettingsPatch" });
