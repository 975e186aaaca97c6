/**
 * The five script tools (SCRIPT-017) and a script's own first-class tool (SCRIPT-022).
 * Reads and writes go to the live catalog; what runs is the run's snapshot, or the live
 * row for a name created during the run (SCRIPT-027..029). The work is behind
 * ToolContext.scripts; this file is the model's side of it.
 */
import * as z from "zod";
import type { OfferedTool } from "../runs/snapshot";
import { checkScriptArguments, parseScriptArguments } from "../scripts/rules";
import { SCRIPT_ARGUMENTS_MAX_BYTES } from "../scripts/types";
import { SandboxError, sandboxFailureText } from "./sandbox-error";
import { shellText } from "./shell";
import type { AnyToolDefinition, ToolContext, ToolDefinition, ToolResult } from "./types";

const NAME = z.string().min(1).max(63).describe("The script's name, e.g. fetch_prices");
const OFF = "ERROR: scripting is off for this run";

export const scriptCreate: ToolDefinition<{ name: string; description: string; source: string; parameters?: Record<string, unknown> | null }> = {
  name: "script_create",
  description:
    "Write a Python script you can run again in later runs, or replace the one of the same name. It runs with python3 in /home/agent; " +
    "its arguments arrive as a JSON object on stdin (and in $GUILDS_SCRIPT_ARGS), your secrets in its environment. " +
    "With a parameters JSON Schema (type object) it also becomes a tool of its own from your next run.",
  binding: "script",
  parameters: z.strictObject({
    name: NAME.describe("Lowercase letter first, then lowercase letters, digits, _ or -; at most 63 characters"),
    description: z.string().describe("Why the script exists and what it does (at most 400 characters)"),
    source: z.string().describe("The Python source"),
    parameters: z.record(z.string(), z.unknown()).nullable().optional().describe("JSON Schema of its arguments (type object), or null"),
  }),
  async execute(args, ctx) {
    if (!ctx.scripts) return { content: OFF };
    const written = await ctx.scripts.create(args);
    const note = written.snapshotted ? "This run keeps executing the version it started with; the new version runs from your next run." : undefined;
    return {
      content: JSON.stringify({ name: args.name, status: written.created ? "created" : "replaced", version: written.version, ...(note ? { note } : {}) }),
    };
  },
};

export const scriptList: ToolDefinition<Record<string, never>> = {
  name: "script_list",
  description: "List your scripts with why each exists (the current catalog).",
  binding: "script",
  parameters: z.strictObject({}),
  async execute(_args, ctx) {
    if (!ctx.scripts) return { content: OFF };
    const scripts = await ctx.scripts.list();
    if (scripts.length === 0) return { content: "You have no scripts yet." };
    return {
      content: JSON.stringify(scripts.map((s) => ({ name: s.name, description: s.description, version: s.version, has_parameters: s.parameters !== null }))),
    };
  },
};

export const scriptRead: ToolDefinition<{ name: string }> = {
  name: "script_read",
  description: "Read one of your scripts: description, parameters and source (the current catalog).",
  binding: "script",
  parameters: z.strictObject({ name: NAME }),
  async execute(args, ctx) {
    if (!ctx.scripts) return { content: OFF };
    const script = await ctx.scripts.read(args.name);
    if (!script) return { content: `ERROR: no script named ${args.name}` };
    const { snapshotted, ...shown } = script;
    return {
      content: JSON.stringify({ ...shown, ...(snapshotted ? {} : { note: "Created during this run: script_run runs this source." }) }),
      metadata: { path: `scripts/${args.name}.py` },
    };
  },
};

export const scriptRun: ToolDefinition<{ name: string; arguments?: unknown }> = {
  name: "script_run",
  description: "Run one of your scripts in your sandbox, with an optional arguments object passed to it as JSON on stdin. Returns its output and exit code.",
  binding: "script",
  parameters: z.strictObject({
    name: NAME,
    arguments: z.unknown().optional().describe("A JSON object of arguments ({} when omitted)"),
  }),
  async execute(args, ctx) {
    const parsed = parseScriptArguments(args.arguments);
    if (!parsed.ok) return { content: `ERROR: ${parsed.message}` };
    return runScript(args.name, parsed.value, ctx);
  },
};

export const scriptDelete: ToolDefinition<{ name: string }> = {
  name: "script_delete",
  description: "Delete one of your scripts. It stops running at once, in this run too.",
  binding: "script",
  parameters: z.strictObject({ name: NAME }),
  async execute(args, ctx) {
    if (!ctx.scripts) return { content: OFF };
    return { content: (await ctx.scripts.remove(args.name)) ? `Deleted script ${args.name}.` : `ERROR: no script named ${args.name}` };
  },
};

export const SCRIPT_TOOLS = [scriptCreate, scriptList, scriptRead, scriptRun, scriptDelete] as const;

/**
 * The definition behind a snapshotted script's own tool: its arguments are checked
 * against the script's schema, then it runs like script_run (SCRIPT-033).
 */
export function scriptTool(schema: OfferedTool): AnyToolDefinition {
  const { name, description, parameters } = schema.function;
  const definition: ToolDefinition<Record<string, unknown>> = {
    name,
    description,
    binding: "script",
    parameters: z.record(z.string(), z.unknown()),
    async execute(args, ctx) {
      const problems = checkScriptArguments(parameters, args);
      if (problems.length) return { content: `ERROR: invalid arguments: ${problems.join("; ")}` };
      return runScript(name, args, ctx);
    },
  };
  return definition as AnyToolDefinition;
}

async function runScript(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  if (!ctx.scripts) return { content: OFF };
  const bytes = new TextEncoder().encode(JSON.stringify(args)).length;
  if (bytes > SCRIPT_ARGUMENTS_MAX_BYTES)
    return { content: `ERROR: the arguments are ${bytes} bytes as JSON, over the ${SCRIPT_ARGUMENTS_MAX_BYTES}-byte limit; pass large data in a file` };
  try {
    const ran = await ctx.scripts.run(name, args, ctx.signal);
    if (!ran.ok) return { content: `ERROR: ${ran.missing}` };
    return { content: shellText(ran.result, ran.timeoutS, `script timed out after ${ran.timeoutS} s: it and everything it started were killed`) };
  } catch (error) {
    if (error instanceof SandboxError) return { content: sandboxFailureText(error) };
    throw error;
  }
}
