/**
 * The shape of an agent's task harness and its defaults, shared by the API's validation
 * (core/tasks/harness.ts) and the console's form, which must agree on what an agent that
 * never set one gets.
 *
 * @example DEFAULT_TASK_HARNESS.kind // "platform"
 */
export const HARNESS_KINDS = ["platform", "claude-code"] as const;
export const PERMISSION_MODES = ["bypassPermissions", "acceptEdits", "default", "plan"] as const;
/** How the agent's provider is spoken to: Chat Completions (translated by the gateway) or Anthropic's Messages as is. */
export const MODEL_APIS = ["openai", "anthropic"] as const;

export type HarnessKind = (typeof HARNESS_KINDS)[number];

export interface TaskHarness {
  kind: HarnessKind;
  /** The model Claude Code is told to use and the gateway forwards with; null: the agent's model. */
  model: string | null;
  /** Claude Code's turns per prompt. */
  max_turns: number;
  permission_mode: (typeof PERMISSION_MODES)[number];
  /** Claude Code tool rules, e.g. "Bash(git:*)", "Edit". */
  allowed_tools: string[];
  disallowed_tools: string[];
  /** Extra command-line flags from the allowlist, each flag and its value as separate items. */
  extra_flags: string[];
  model_api: (typeof MODEL_APIS)[number];
}

/** The harness of an agent that never set one. */
export const DEFAULT_TASK_HARNESS: TaskHarness = {
  kind: "platform",
  model: null,
  max_turns: 100,
  permission_mode: "bypassPermissions",
  allowed_tools: [],
  disallowed_tools: [],
  extra_flags: [],
  model_api: "openai",
};
