import * as z from "zod";
import { TaskHarnessPatch, TaskHarnessSchema } from "../../core/tasks/harness";
import { MEMORY_MAX } from "../../core/tools/memory";
import { boundedInt, envName, idInput, oneLine } from "../../core/validation/fields";
import { ListQuery, pageOf } from "../http/page.schema";

export const THINKING_LEVELS = ["off", "low", "medium", "high"] as const;

/**
 * Agent configuration with the spec's defaults. Everything here is snapshotted by
 * a run at creation, so a change reaches new runs only.
 */
const agentFields = {
  name: oneLine(120),
  description: z.string().max(2000),
  instructions: z.string().max(100_000),
  model: z.string().trim().min(1).max(200),
  // Where the URL may point depends on the operator's settings: checked by the routes
  // (core/providers/provider.ts modelBaseUrlIssue) and again at each generation start.
  model_base_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .nullable()
    .describe(
      "An OpenAI-compatible provider; null: the platform's. Any other provider needs model_api_key_secret (the platform's key is never sent there). Loopback, private, link-local and metadata addresses and URLs with credentials are refused unless the operator allows them.",
    ),
  model_api_key_secret: envName.nullable().describe("Name of the secret holding the key for model_base_url"),
  max_steps: boundedInt(1, 500),
  max_tool_calls: boundedInt(1, 10_000),
  max_input_tokens: boundedInt(1_000, 2_000_000),
  keep_tool_result_generations: boundedInt(1, 1_000),
  projection_policy_version: z.literal(1),
  thinking_level: z.enum(THINKING_LEVELS),
  browser: z.boolean(),
  coding: z.boolean(),
  cli: z.boolean(),
  scripting: z.boolean(),
  memory: z.boolean(),
  group_post: z.boolean(),
  browser_language: z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/, "must be a language tag such as en-US"),
  max_workspace_mib: boundedInt(1, 1_048_576),
  max_scripts: boundedInt(1, 1_000),
};

/** A coding agent's task harness on the wire: every field, defaults filled in (core/tasks/harness.ts). */
export const TaskHarness = TaskHarnessSchema.meta({ id: "TaskHarness" });

/**
 * The harness in a create or a PATCH: the fields given (a PATCH merges them over the stored
 * ones), or null for the defaults. claude-code needs a coding agent (422 naming task_harness.kind).
 */
const taskHarnessInput = TaskHarnessPatch.meta({ id: "TaskHarnessPatch" })
  .nullable()
  .describe("What generates the agent's task turns: the fields given merge over the stored ones; null: the defaults");

/** The defaults of a new agent; `model` falls back to the platform's default model. */
export const AGENT_DEFAULTS = {
  description: "",
  instructions: "",
  model_base_url: null,
  model_api_key_secret: null,
  max_steps: 40,
  max_tool_calls: 50,
  max_input_tokens: 100_000,
  keep_tool_result_generations: 1,
  projection_policy_version: 1,
  thinking_level: "off",
  browser: false,
  coding: false,
  cli: true,
  scripting: true,
  memory: false,
  group_post: true,
  browser_language: "en-US",
  max_workspace_mib: 2048,
  max_scripts: 10,
} as const;

/**
 * Body of `POST /api/guilds/:id/agents`.
 *
 * @example AgentCreate.parse({ name: "Scout" }).max_tool_calls // 50
 */
export const AgentCreate = z
  .strictObject({
    name: agentFields.name,
    model: agentFields.model.optional(),
    description: agentFields.description.default(AGENT_DEFAULTS.description),
    instructions: agentFields.instructions.default(AGENT_DEFAULTS.instructions),
    model_base_url: agentFields.model_base_url.default(AGENT_DEFAULTS.model_base_url),
    model_api_key_secret: agentFields.model_api_key_secret.default(AGENT_DEFAULTS.model_api_key_secret),
    max_steps: agentFields.max_steps.default(AGENT_DEFAULTS.max_steps),
    max_tool_calls: agentFields.max_tool_calls.default(AGENT_DEFAULTS.max_tool_calls),
    max_input_tokens: agentFields.max_input_tokens.default(AGENT_DEFAULTS.max_input_tokens),
    keep_tool_result_generations: agentFields.keep_tool_result_generations.default(AGENT_DEFAULTS.keep_tool_result_generations),
    projection_policy_version: agentFields.projection_policy_version.default(AGENT_DEFAULTS.projection_policy_version),
    thinking_level: agentFields.thinking_level.default(AGENT_DEFAULTS.thinking_level),
    browser: agentFields.browser.default(AGENT_DEFAULTS.browser),
    coding: agentFields.coding.default(AGENT_DEFAULTS.coding),
    cli: agentFields.cli.default(AGENT_DEFAULTS.cli),
    scripting: agentFields.scripting.default(AGENT_DEFAULTS.scripting),
    memory: agentFields.memory.default(AGENT_DEFAULTS.memory),
    group_post: agentFields.group_post.default(AGENT_DEFAULTS.group_post),
    browser_language: agentFields.browser_language.default(AGENT_DEFAULTS.browser_language),
    max_workspace_mib: agentFields.max_workspace_mib.default(AGENT_DEFAULTS.max_workspace_mib),
    max_scripts: agentFields.max_scripts.default(AGENT_DEFAULTS.max_scripts),
    task_harness: taskHarnessInput.optional(),
  })
  .meta({ id: "AgentCreate" });

/** Body of `PATCH /api/agents/:id`: any subset of the fields, at least one. */
export const AgentPatch = z
  .strictObject({ ...agentFields, task_harness: taskHarnessInput })
  .partial()
  .refine((body) => Object.keys(body).length > 0, { message: "no field to change" })
  .meta({ id: "AgentPatch" });

/** An agent as the API returns it. */
export const Agent = z
  .object({
    id: z.uuid(),
    organisation_id: z.uuid(),
    guild_id: z.uuid(),
    ...agentFields,
    name: z.string(),
    model: z.string(),
    workspace_mib: z.int().nullable(),
    task_harness: TaskHarness,
    archived_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Agent" });

export const AgentPage = pageOf(Agent, "AgentPage");

/** Query of `GET /api/agents`: a page, optionally of one guild's agents. */
export const AgentListQuery = ListQuery.extend({ guild_id: idInput().optional().describe("Only this guild's agents") });

/** Body of `PUT /api/agents/:id/memory`: the whole document, replacing the previous one. */
export const MemoryReplace = z.strictObject({ content: z.string().max(MEMORY_MAX) }).meta({ id: "MemoryReplace" });

/** The agent's Memory document, the opening `<memory>` of its new runs. */
export const Memory = z
  .object({
    agent_id: z.uuid(),
    enabled: z.boolean().describe("Whether the agent's memory flag is on (otherwise runs do not get the document)"),
    content: z.string(),
    updated_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "Memory" });

/** One pending deadline of an agent's object (its payload left out). */
export const Deadline = z
  .object({
    name: z.string(),
    kind: z.string(),
    due_at: z.iso.datetime(),
    version: z.int(),
    attempts: z.int(),
  })
  .meta({ id: "Deadline" });

/** Whether the agent generates (and which run, until when), and its pending deadlines. */
export const AgentStatus = z
  .object({
    agent_id: z.uuid(),
    generating: z.boolean(),
    run_id: z.uuid().optional(),
    generation: z.int().optional(),
    started_at: z.iso.datetime().optional(),
    lease_until: z.iso.datetime().optional(),
    lease_expired: z.boolean().optional().describe("The lease ran out without a release: the generation is presumed dead (recovery pending)"),
    deadlines: z.array(Deadline),
  })
  .meta({ id: "AgentStatus" });

export type AgentCreate = z.infer<typeof AgentCreate>;
export type AgentPatch = z.infer<typeof AgentPatch>;
