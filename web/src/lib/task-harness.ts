import { DEFAULT_TASK_HARNESS } from "../../../core/shared/task-harness";
import type { TaskHarness, TaskHarnessPatch } from "./api";

/**
 * The Task harness section of the agent settings form, pure: its fields as typed, the
 * harness body to send, and the API's 422 messages placed at the field they name. Lists are
 * typed one per line; an extra flag's value goes on its flag's line after a space.
 */
export const HARNESS_FIELDS = ["kind", "model", "max_turns", "permission_mode", "allowed_tools", "disallowed_tools", "extra_flags", "model_api"] as const;
export type HarnessField = (typeof HARNESS_FIELDS)[number];
export type HarnessValues = Record<HarnessField, string>;

export const HARNESS_KIND_LABELS: Record<TaskHarness["kind"], string> = { platform: "Platform", "claude-code": "Claude Code" };
export const PERMISSION_MODE_LABELS: Record<TaskHarness["permission_mode"], string> = {
  bypassPermissions: "Bypass permissions",
  acceptEdits: "Accept edits",
  default: "Default (ask; refused without a person)",
  plan: "Plan only",
};
export const MODEL_API_LABELS: Record<TaskHarness["model_api"], string> = {
  openai: "Chat Completions (translated)",
  anthropic: "Anthropic Messages (as is)",
};

export const HARNESS_LABELS: Record<HarnessField, string> = {
  kind: "Harness",
  model: "Claude Code model",
  max_turns: "Max turns per prompt",
  permission_mode: "Permission mode",
  allowed_tools: "Allowed tools",
  disallowed_tools: "Disallowed tools",
  extra_flags: "Extra flags",
  model_api: "Provider API",
};

/** Extra flags one per line: a flag, then its value on the same line when the next item is not a flag. */
function flagLines(items: readonly string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const next = items[i + 1];
    if (items[i]!.startsWith("-") && next !== undefined && !next.startsWith("-")) lines.push(`${items[i]} ${items[++i]}`);
    else lines.push(items[i]!);
  }
  return lines.join("\n");
}

/** The section's values for a harness (the defaults for a new agent). */
export function harnessValuesOf(harness: TaskHarness | undefined | null): HarnessValues {
  const h = harness ?? DEFAULT_TASK_HARNESS;
  return {
    kind: h.kind,
    model: h.model ?? "",
    max_turns: String(h.max_turns),
    permission_mode: h.permission_mode,
    allowed_tools: h.allowed_tools.join("\n"),
    disallowed_tools: h.disallowed_tools.join("\n"),
    extra_flags: flagLines(h.extra_flags),
    model_api: h.model_api,
  };
}

/** The items a list field sends, with the line (1-based) each came from: one per line, blank lines left out. */
export function listItems(text: string): { items: string[]; lines: number[] } {
  const items: string[] = [];
  const lines: number[] = [];
  text.split("\n").forEach((line, i) => {
    const item = line.trim();
    if (item) {
      items.push(item);
      lines.push(i + 1);
    }
  });
  return { items, lines };
}

/** The extra flags' items: each line's flag, then what follows its first space as a separate item. */
export function flagItems(text: string): { items: string[]; lines: number[] } {
  const items: string[] = [];
  const lines: number[] = [];
  const { items: rows, lines: at } = listItems(text);
  rows.forEach((row, i) => {
    const space = row.search(/\s/);
    for (const part of space < 0 ? [row] : [row.slice(0, space), row.slice(space).trim()]) {
      items.push(part);
      lines.push(at[i]!);
    }
  });
  return { items, lines };
}

/** One field's wire value: a whole number as a number (anything else as typed, for the API to name), an empty model as null. */
function wire(field: HarnessField, value: string): unknown {
  if (field === "max_turns") return /^\s*\d+\s*$/.test(value) ? Number(value) : value.trim() === "" ? null : value;
  if (field === "model") return value.trim() === "" ? null : value.trim();
  if (field === "allowed_tools" || field === "disallowed_tools") return listItems(value).items;
  if (field === "extra_flags") return flagItems(value).items;
  return value;
}

/**
 * The `task_harness` to send: the fields changed from the agent's harness (from the defaults
 * for a new agent), or undefined when none changed. Compared as sent, so reflowed lines or a
 * flag moved onto its own line count as no change.
 */
export function harnessBody(values: HarnessValues, initial: TaskHarness | undefined | null): TaskHarnessPatch | undefined {
  const before = initial ?? DEFAULT_TASK_HARNESS;
  const body: Record<string, unknown> = {};
  for (const field of HARNESS_FIELDS) {
    const value = wire(field, values[field]);
    if (JSON.stringify(value) !== JSON.stringify(before[field])) body[field] = value;
  }
  return Object.keys(body).length ? (body as TaskHarnessPatch) : undefined;
}

/**
 * The API's messages for the section, by field: `task_harness.extra_flags.3` is put at the
 * extra flags with the line it came from; a message about the whole harness goes to its kind.
 */
export function harnessErrors(errors: Record<string, string>, values: HarnessValues): Partial<Record<HarnessField, string>> {
  const out: Partial<Record<HarnessField, string>> = {};
  const add = (field: HarnessField, message: string) => {
    out[field] = out[field] ? `${out[field]}; ${message}` : message;
  };
  for (const [name, message] of Object.entries(errors)) {
    const match = /^task_harness(?:\.([a-z_]+)(?:\.(\d+))?)?$/.exec(name);
    if (!match) continue;
    const field = (HARNESS_FIELDS as readonly string[]).includes(match[1] ?? "") ? (match[1] as HarnessField) : "kind";
    if (match[2] === undefined || (field !== "extra_flags" && field !== "allowed_tools" && field !== "disallowed_tools")) {
      add(field, match[1] && field !== match[1] ? `${match[1]}: ${message}` : message);
      continue;
    }
    const { lines } = field === "extra_flags" ? flagItems(values[field]) : listItems(values[field]);
    const line = lines[Number(match[2])];
    add(field, line ? `line ${line}: ${message}` : message);
  }
  return out;
}

/** Whether the section shows: for coding agents, and for any agent whose harness is not the platform's (so a refusal can be seen and mended). */
export const harnessShown = (coding: boolean, values: HarnessValues) => coding || values.kind !== "platform";
