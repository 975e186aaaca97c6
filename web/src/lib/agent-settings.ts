import type { Agent, AgentCreate } from "./api";

/** The agent settings form's fields, defaults and wire body; pure. */
export const TEXT = ["name", "description", "instructions", "model", "model_base_url", "model_api_key_secret", "browser_language"] as const;
export const NUMBERS = ["max_steps", "max_tool_calls", "max_input_tokens", "keep_tool_result_generations", "max_workspace_mib", "max_scripts"] as const;
export const FLAGS = ["browser", "coding", "cli", "scripting", "memory", "group_post"] as const;
/** The thinking levels an agent, or a what-if variant, may ask for (the API's Agent.thinking_level). */
export const THINKING_LEVELS = ["off", "low", "medium", "high"] as const;
const NULLABLE = new Set(["model_base_url", "model_api_key_secret"]);

export type TextField = (typeof TEXT)[number];
export type NumberField = (typeof NUMBERS)[number];
export type Flag = (typeof FLAGS)[number];
export type Values = Record<TextField | NumberField, string> & Record<Flag, boolean> & { thinking_level: string };

/** The defaults of a new agent (workers/api/agents.schema.ts); model empty means the platform's default. */
export const DEFAULTS: Values = {
  name: "",
  description: "",
  instructions: "",
  model: "",
  model_base_url: "",
  model_api_key_secret: "",
  browser_language: "en-US",
  max_steps: "40",
  max_tool_calls: "50",
  max_input_tokens: "100000",
  keep_tool_result_generations: "1",
  max_workspace_mib: "2048",
  max_scripts: "10",
  browser: false,
  coding: false,
  cli: true,
  scripting: true,
  memory: false,
  group_post: true,
  thinking_level: "off",
};

export const LABELS: Record<string, string> = {
  name: "Name",
  description: "Description",
  instructions: "Instructions",
  model: "Model",
  model_base_url: "Provider base URL",
  model_api_key_secret: "API key secret name",
  browser_language: "Browser language",
  thinking_level: "Thinking level",
  max_steps: "Max steps per generation",
  max_tool_calls: "Max tool calls per run",
  max_input_tokens: "Max input tokens",
  keep_tool_result_generations: "Keep tool results (generations)",
  max_workspace_mib: "Max workspace (MiB)",
  max_scripts: "Max scripts",
  browser: "Browser",
  coding: "Coding",
  cli: "CLI",
  scripting: "Scripting",
  memory: "Memory",
  group_post: "Posts in the group chat",
};

/** The form values of an agent (the defaults for a new one). */
export function valuesOf(agent: Agent | null): Values {
  if (!agent) return { ...DEFAULTS };
  const v = { ...DEFAULTS, thinking_level: agent.thinking_level };
  for (const k of TEXT) v[k] = agent[k] ?? "";
  for (const k of NUMBERS) v[k] = String(agent[k]);
  for (const k of FLAGS) v[k] = agent[k];
  return v;
}

/** A whole number as a number; anything else is sent as typed, for the API to name. */
function wire(field: string, value: string | boolean): unknown {
  if (typeof value === "boolean") return value;
  if ((NUMBERS as readonly string[]).includes(field)) return /^\s*-?\d+\s*$/.test(value) ? Number(value) : value.trim() === "" ? null : value;
  if (NULLABLE.has(field) && value.trim() === "") return null;
  return value;
}

/**
 * The body to send: every field on create (an empty model: the default), only the changed ones on edit.
 * A number typed badly goes as typed, so that the API's 422 names the field: hence the cast.
 */
export function agentBody(values: Values, initial: Agent | null): AgentCreate {
  const before = initial ? valuesOf(initial) : null;
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(values) as Array<keyof Values>) {
    if (before && before[key] === values[key]) continue;
    if (!before && key === "model" && values.model.trim() === "") continue;
    body[key] = wire(key, values[key]);
  }
  return body as AgentCreate;
}
