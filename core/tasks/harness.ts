/**
 * A coding agent's task harness: what generates a task's turns. `platform` is the platform's
 * own generation loop; `claude-code` runs Claude Code in the task's box, its model calls going
 * through the platform's model gateway. Stored as JSON on the agent (`agents.task_harness`),
 * where a key it does not set, or no longer valid, takes its default. The extra flags'
 * allowlist is in harness-flags.ts.
 *
 * @example taskHarness({ kind: "claude-code" }).max_turns // 100
 */
import * as z from "zod";
import type { SnapshotHarness } from "../runs/snapshot";
import { DEFAULT_TASK_HARNESS, HARNESS_KINDS, MODEL_APIS, PERMISSION_MODES, type TaskHarness } from "../shared/task-harness";
import { boundedInt } from "../validation/fields";
import { type FieldIssue, fieldIssues } from "../validation/issues";
import { EXTRA_FLAG_CHARS, extraFlagIssues, MAX_EXTRA_FLAG_ITEMS, MODEL_NAME } from "./harness-flags";

export type { HarnessKind } from "../shared/task-harness";
export { DEFAULT_TASK_HARNESS, HARNESS_KINDS, MODEL_APIS, PERMISSION_MODES, type TaskHarness };

/** The Claude Code version the standard image pins: what a claude-code run records. */
export const CLAUDE_CODE_VERSION = "2.1.328";
/** What a run the platform's own loop generates records as its harness version. */
export const PLATFORM_HARNESS_VERSION = "platform";

export const MAX_TOOL_RULES = 64;
const TOOL_RULE_CHARS = 200;

/**
 * A Claude Code permission rule: a tool name, optionally with one parenthesised argument
 * (`Bash(git diff:*)`, `Edit(/data/workspace/**)`, `mcp__forge__read`). No comma, since
 * Claude Code splits its tool lists on commas, and no space outside the argument for the same reason.
 */
export const TOOL_RULE = /^[A-Za-z][A-Za-z0-9_*:./-]*(\([A-Za-z0-9_*:./ -]+\))?$/;

const toolRules = z
  .array(
    z
      .string()
      .max(TOOL_RULE_CHARS)
      .regex(TOOL_RULE, "must be a tool rule such as Edit or Bash(git:*): letters, digits, _ - * : . / and one (argument) that may hold spaces"),
  )
  .max(MAX_TOOL_RULES);

/** Each field's rule; a stored value that fails its rule reads as the default. */
const fields = {
  kind: z.enum(HARNESS_KINDS).describe("platform: the platform's own loop; claude-code: Claude Code in the task's box (coding agents only)"),
  model: z
    .string()
    .max(200)
    .regex(MODEL_NAME, "must be a model name: letters, digits and . _ : / @ + - [ ], not starting with -")
    .nullable()
    .describe("The model Claude Code is told to use and the gateway forwards with; null: the agent's model"),
  max_turns: boundedInt(1, 1000).describe("Claude Code's turns per prompt"),
  permission_mode: z.enum(PERMISSION_MODES),
  allowed_tools: toolRules.describe('Claude Code tool rules it may use without asking, e.g. "Bash(git:*)", "Edit"'),
  disallowed_tools: toolRules.describe("Claude Code tool rules it may not use"),
  extra_flags: z
    .array(z.string().max(EXTRA_FLAG_CHARS))
    .max(MAX_EXTRA_FLAG_ITEMS)
    .superRefine((items, ctx) => {
      for (const { index, message } of extraFlagIssues(items)) ctx.addIssue({ code: "custom", path: [index], message });
    })
    .describe(
      "Extra Claude Code flags, each flag and its value as separate items; allowed: --add-dir <path under /data/workspace>, --fallback-model <model>, --betas <name>, --effort <level>, --strict-mcp-config, --disable-slash-commands, --exclude-dynamic-system-prompt-sections",
    ),
  model_api: z.enum(MODEL_APIS).describe("How the agent's provider is spoken to: openai (Chat Completions, translated) or anthropic (Messages as is)"),
};

type FieldName = keyof typeof fields;
const FIELD_NAMES = Object.keys(fields) as FieldName[];

/** The harness as the API answers it: every field, defaults filled in. */
export const TaskHarnessSchema = z.object(fields);

/** What a create or PATCH may give: any of the fields; a PATCH merges them over the stored ones. */
export const TaskHarnessPatch = z.strictObject(fields).partial();
export type TaskHarnessPatch = z.infer<typeof TaskHarnessPatch>;

/** The fields of the stored JSON that still pass their rules; the others are left out. */
export function storedHarnessFields(stored: unknown): TaskHarnessPatch {
  const out: Record<string, unknown> = {};
  if (!stored || typeof stored !== "object" || Array.isArray(stored)) return out;
  for (const key of FIELD_NAMES) {
    if (!(key in stored)) continue;
    const parsed = fields[key].safeParse((stored as Record<string, unknown>)[key]);
    if (parsed.success) out[key] = parsed.data;
  }
  return out as TaskHarnessPatch;
}

/** The effective harness from the stored JSON: defaults for what is missing or no longer valid. */
export function taskHarness(stored: unknown): TaskHarness {
  return { ...DEFAULT_TASK_HARNESS, allowed_tools: [], disallowed_tools: [], extra_flags: [], ...storedHarnessFields(stored) };
}

/**
 * What to store after a write: the patch's fields over the stored ones; null resets to the
 * defaults (`{}`), and no patch keeps what is stored. Only fields given are stored, so an
 * agent that never set one follows its default.
 */
export function harnessToStore(stored: unknown, patch: TaskHarnessPatch | null | undefined): TaskHarnessPatch {
  if (patch === null) return {};
  return { ...storedHarnessFields(stored), ...(patch ?? {}) };
}

/**
 * The 422 issues of a harness (a body's, or the stored one with a patch merged over it) for an
 * agent with this coding flag, each named from the agent's body: `task_harness.max_turns`,
 * `task_harness.extra_flags.2`. A Claude Code harness needs a coding agent (only those take tasks).
 */
export function harnessIssues(input: unknown, agent: { coding: boolean }): FieldIssue[] {
  if (input === null || input === undefined) return [];
  const parsed = TaskHarnessPatch.safeParse(input);
  if (!parsed.success) return fieldIssues(parsed.error).map((issue) => ({ ...issue, field: issue.field ? `task_harness.${issue.field}` : "task_harness" }));
  if (parsed.data.kind === "claude-code" && !agent.coding) {
    return [{ field: "task_harness.kind", message: "claude-code needs a coding agent: turn coding on, or keep the platform harness" }];
  }
  return [];
}

/** A Claude Code harness's settings as a run records them: the model resolved to the agent's when the harness names none. */
export type ClaudeCodeSettings = Omit<TaskHarness, "kind" | "model"> & { model: string };

/**
 * What generates a run of this agent, for its snapshot: only coding agents record one. A task
 * run takes the agent's harness; the agent's other runs (chats, group and schedule runs) are
 * always the platform's own loop.
 *
 * @example runHarness({ coding: true, model: "m", taskHarness: { kind: "claude-code" } }, "task").version // CLAUDE_CODE_VERSION
 */
export function runHarness(agent: { coding: boolean; model: string; taskHarness: unknown }, runKind: string): SnapshotHarness | undefined {
  if (!agent.coding) return undefined;
  const harness = taskHarness(agent.taskHarness);
  if (runKind !== "task" || harness.kind === "platform") return { kind: "platform", version: PLATFORM_HARNESS_VERSION, settings: {} };
  const { kind: _kind, model, ...rest } = harness;
  const settings: ClaudeCodeSettings = { ...rest, model: model ?? agent.model };
  return { kind: "claude-code", version: CLAUDE_CODE_VERSION, settings };
}
