/**
 * The native tool registry: which definitions a run offers (EXACT-010, EXACT-011), their
 * JSON schemas for the snapshot and the model, and `runTool`, which turns one model tool
 * call into a result string without ever throwing. The loop stores what `runTool` returns
 * only after the output pipeline (GEN-025, core/output/tool-output.ts).
 */
import * as z from "zod";
import { fieldIssues } from "../validation/issues";
import { BROWSER_TOOLS } from "./browser";
import { GROUP_TOOLS } from "./group";
import { MEMORY_TOOLS } from "./memory";
import { NOTE_TOOLS } from "./notes";
import { RECORD_TOOLS } from "./records";
import { SCHEDULE_TOOLS } from "./schedules";
import { SCRIPT_TOOLS } from "./scripts";
import { SEARCH_TOOLS } from "./search";
import { SECRET_REQUEST_TOOLS, SECRET_STORE_TOOLS } from "./secrets";
import { CODING_TOOLS } from "./shell";
import { TASK_TOOLS } from "./task";
import type { AnyToolDefinition, ToolContext, ToolResult, ToolSchema } from "./types";

/** Run settings that select bindings. Later bindings read more of them (see NATIVE_BINDINGS). */
export interface ToolFlags {
  kind: "direct" | "group" | "schedule" | "task";
  memory?: boolean;
  scripting?: boolean;
  browser?: boolean;
  coding?: boolean;
  group_post?: boolean;
  /** The platform has TAVILY_API_KEY (EXACT-015): a platform fact, not an agent setting. */
  search?: boolean;
}

/** One native binding: its tools and when a run offers them. */
export interface NativeBinding {
  binding: string;
  offered(flags: ToolFlags): boolean;
  tools: readonly AnyToolDefinition[];
}

/**
 * Native bindings in offer order (EXACT-005: the same flags always give the same list). note
 * and record are always on (EXACT-011), memory with flags.memory, schedules on direct and
 * group runs, group_post with its binding on, the secret tools, then the eight browser tools
 * with flags.browser (EXACT-019) and shell with flags.coding. The five script tools come with
 * flags.scripting, after memory (EXACT-013), then tavily_search where the platform has a search
 * key (EXACT-015); a script's own tools follow every native one.
 */
export const NATIVE_BINDINGS: readonly NativeBinding[] = [
  { binding: "note", offered: () => true, tools: NOTE_TOOLS },
  { binding: "record", offered: () => true, tools: RECORD_TOOLS },
  { binding: "memory", offered: (flags) => flags.memory === true && !task(flags), tools: MEMORY_TOOLS },
  // A switch, not a binding: off, none is offered whatever the bindings say (SCRIPT-018).
  { binding: "script", offered: (flags) => flags.scripting === true && !task(flags), tools: SCRIPT_TOOLS },
  // Where the platform has a search key, every run but a task's may search the web (EXACT-015).
  { binding: "tavily_search", offered: (flags) => flags.search === true && !task(flags), tools: SEARCH_TOOLS },
  // Direct and group runs may plan wake-ups; a schedule run may not (EXACT-017).
  { binding: "schedule", offered: (flags) => flags.kind !== "schedule" && !task(flags), tools: SCHEDULE_TOOLS },
  { binding: "group_post", offered: (flags) => flags.group_post === true && !task(flags), tools: GROUP_TOOLS },
  // Every run may keep a secret; only a direct run has an operator to ask (EXACT-016, SEC-012).
  { binding: "secret_store", offered: (flags) => !task(flags), tools: SECRET_STORE_TOOLS },
  { binding: "secret_request", offered: (flags) => flags.kind === "direct", tools: SECRET_REQUEST_TOOLS },
  { binding: "browser", offered: (flags) => flags.browser === true && !task(flags), tools: BROWSER_TOOLS },
  // A task run always codes, in its task's box (TASK-012).
  { binding: "coding", offered: (flags) => flags.coding === true || task(flags), tools: CODING_TOOLS },
  { binding: "task", offered: task, tools: TASK_TOOLS },
];

/** A task run offers the agent's notes and records, the coding tools and the task tools, nothing more. */
function task(flags: ToolFlags): boolean {
  return flags.kind === "task";
}

/**
 * Every native tool name, whatever the flags (OP-SCRIPT-10): a script may take none of them
 * as its name (SCRIPT-009).
 *
 * @example nativeToolNames().has("shell") // true
 */
export function nativeToolNames(bindings: readonly NativeBinding[] = NATIVE_BINDINGS): Set<string> {
  return new Set(bindings.flatMap((b) => b.tools.map((t) => t.name)));
}

/**
 * The definitions a run offers, in a fixed order: the run snapshots their schemas, so the
 * same flags must always give the same list (EXACT-005).
 *
 * @example offeredTools({ kind: "direct" }).map((t) => t.name) // ["note_write", …, "record_list"]
 */
export function offeredTools(flags: ToolFlags, bindings: readonly NativeBinding[] = NATIVE_BINDINGS): AnyToolDefinition[] {
  return bindings.filter((b) => b.offered(flags)).flatMap((b) => [...b.tools]);
}

/**
 * The Chat Completions `tools` array for these definitions: draft-7 JSON Schema of each
 * argument object as the model writes it (zod's input side, so defaulted fields are
 * optional), without `$schema`. Throws on a duplicate name: that is a programming error.
 *
 * @example toolSchemas([noteRead])[0] // { type: "function", function: { name: "note_read", description, parameters: { type: "object", … } } }
 */
export function toolSchemas(definitions: readonly AnyToolDefinition[]): ToolSchema[] {
  const names = new Set<string>();
  return definitions.map((definition) => {
    if (names.has(definition.name)) throw new Error(`duplicate tool name ${definition.name}`);
    names.add(definition.name);
    return { type: "function", function: { name: definition.name, description: definition.description, parameters: jsonParameters(definition.parameters) } };
  });
}

/**
 * A tool's parameters as JSON Schema, converted once per schema and isolate: every run's
 * opening offers the same built-in tools, and converting them was most of an opening's preparation.
 * Callers serialise the result and never change it.
 */
const converted = new WeakMap<z.ZodType, Record<string, unknown>>();

function jsonParameters(schema: z.ZodType): Record<string, unknown> {
  let parameters = converted.get(schema);
  if (!parameters) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io: "input" });
    parameters = rest;
    converted.set(schema, parameters);
  }
  return parameters;
}

/**
 * Runs one tool call. Every failure is a result the model can read and correct:
 * unknown tool, arguments that are not a JSON object, invalid fields, or an exception in
 * the tool. Empty arguments ("") count as `{}`, as some providers send them for no-arg tools.
 *
 * @example await runTool(tools, "note_read", '{"title":""}', ctx)
 * // { content: "ERROR: invalid arguments: title: Too small: expected string to have >=1 characters" }
 */
export async function runTool(definitions: readonly AnyToolDefinition[], name: string, rawArguments: string, ctx: ToolContext): Promise<ToolResult> {
  const definition = definitions.find((d) => d.name === name);
  if (!definition) return { content: `ERROR: unknown tool ${name}` };
  const parsed = parseArguments(rawArguments);
  if (parsed === undefined) return { content: "ERROR: arguments must be a JSON object" };
  const checked = definition.parameters.safeParse(parsed);
  if (!checked.success) {
    const issues = fieldIssues(checked.error).map((i) => `${i.field || "(arguments)"}: ${i.message}`);
    return { content: `ERROR: invalid arguments: ${issues.join("; ")}` };
  }
  try {
    const result = await definition.execute(checked.data, ctx);
    return typeof result?.content === "string" ? result : { content: "ERROR: the tool returned no result" };
  } catch (error) {
    return { content: `ERROR: ${errorMessage(error)}` };
  }
}

/** The arguments object, or undefined when the text is not a JSON object. */
function parseArguments(raw: string): Record<string, unknown> | undefined {
  if (typeof raw !== "string") return undefined; // a caller bypassing the types must not make it throw
  if (raw.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
