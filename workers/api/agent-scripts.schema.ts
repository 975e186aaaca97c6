import * as z from "zod";
import { MAX_SCRIPT_DESCRIPTION, SCRIPT_NAME_PATTERN } from "../../core/scripts/rules";

/**
 * A script write as the API and the script_create tool take it. The shape is checked here;
 * the rules that need more than a field's type (reserved and tool names, a blank
 * description, the parameter schema itself) are core/scripts/rules.ts's, run after it.
 * Unnamed, so a tool schema built from it stays self-contained (no $ref).
 */
export const ScriptWriteInput = z.strictObject({
  name: z
    .string()
    .regex(SCRIPT_NAME_PATTERN, "must start with a lowercase letter, then lowercase letters, digits, _ or -, 63 characters at most")
    .describe("The script's name: its file is <name>.py; not manifest, not a tool's name"),
  description: z.string().describe(`Why the script exists: required, not blank, at most ${MAX_SCRIPT_DESCRIPTION} characters`),
  source: z.string().describe("The Python source: required, not only whitespace, at most 256 KiB"),
  parameters: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe("A JSON Schema object of type object: the script is then also a tool of its own on new runs; null or absent: run through script_run only"),
});

/** Body of `POST /api/agents/:id/scripts`: creates the script or replaces the one of that name. */
export const ScriptCreateBody = ScriptWriteInput.meta({ id: "ScriptWrite" });

/** Body of `POST /api/agents/:id/scripts/recipe`: scripts applied together, all or none (SCRIPT-016). */
export const ScriptRecipeBody = z
  .strictObject({
    // max_scripts is at most 1,000, so no recipe that could pass needs more.
    scripts: z.array(ScriptWriteInput).min(1).max(1_000),
  })
  .meta({ id: "ScriptRecipe" });

/** Who wrote a version: a run at the step (assistant row seq) that called script_create, or a person's API token. */
export const ScriptAuthor = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("run"), run_id: z.uuid(), seq: z.int().nullable() }),
    z.object({ kind: z.literal("person"), token_id: z.uuid(), name: z.string() }),
  ])
  .meta({ id: "ScriptAuthor" });

const parameters = z.record(z.string(), z.unknown()).nullable().describe("The script's JSON Schema of type object, or null");

/** A script as the API returns it (SCRIPT-041). */
export const Script = z
  .object({
    id: z.uuid(),
    agent_id: z.uuid(),
    name: z.string(),
    description: z.string(),
    source: z.string(),
    source_hash: z.string().describe("SHA-256 hex of the source"),
    parameters,
    version: z.int().describe("1 when created, one more on each replace"),
    author: ScriptAuthor,
    display_path: z.string().describe("Where a run finds it in the sandbox, e.g. /home/agent/scripts/fetch_prices.py"),
    language: z.literal("python"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Script" });

/** Every script of an agent, by name; also what a recipe wrote. */
export const ScriptList = z.object({ data: z.array(Script) }).meta({ id: "ScriptList" });

/** One version of a script. */
export const ScriptVersion = z
  .object({
    version: z.int(),
    description: z.string(),
    source: z.string(),
    source_hash: z.string(),
    parameters,
    author: ScriptAuthor,
    created_at: z.iso.datetime(),
  })
  .meta({ id: "ScriptVersion" });

/** A script's versions, newest first. */
export const ScriptHistory = z.object({ data: z.array(ScriptVersion) }).meta({ id: "ScriptHistory" });

export type ScriptWriteInput = z.infer<typeof ScriptWriteInput>;
