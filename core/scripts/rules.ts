/**
 * The rules a script write must pass before it reaches the catalog (SCRIPT-004..010), and
 * how a script's arguments are read (SCRIPT-036). Pure: the HTTP routes and the script
 * tools share it.
 */
import type { FieldIssue } from "../validation/issues";
import { checkScriptArguments, parameterSchemaIssues } from "./parameter-schema";
import type { ScriptWrite } from "./types";

export { checkScriptArguments };

/** A script's name (SCRIPT-007): a lowercase letter, then lowercase letters, digits, _ or -; 63 characters at most. */
export const SCRIPT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;
/** Taken by the platform's own listing of the scripts folder (SCRIPT-008). */
export const RESERVED_SCRIPT_NAMES: ReadonlySet<string> = new Set(["manifest"]);
/** SCRIPT-010. */
export const MAX_SCRIPT_DESCRIPTION = 400;
/**
 * Largest source, in UTF-8 bytes. Every run copies each script's source into its snapshot
 * and every generation writes it into the sandbox, so the catalog's total is paid per run;
 * 256 KiB is far beyond a hand-written tool and keeps a full catalog within a few MiB.
 */
export const MAX_SCRIPT_SOURCE_BYTES = 256 * 1024;

const FIELDS = new Set(["name", "description", "source", "parameters"]);

export type ScriptWriteCheck = { ok: true; value: ScriptWrite } | { ok: false; issues: FieldIssue[] };

/**
 * Checks one script write; `taken` holds the tool names a script may not take (SCRIPT-009:
 * pass `nativeToolNames()` and any connected tool names). The description is kept trimmed;
 * the source exactly as given.
 *
 * @example validateScriptWrite({ name: "add", description: "Adds two numbers", source: "print(1+1)" }, new Set())
 *   // { ok: true, value: { name: "add", description: "Adds two numbers", source: "print(1+1)", parameters: null } }
 */
export function validateScriptWrite(input: unknown, taken: ReadonlySet<string>): ScriptWriteCheck {
  if (!isPlainObject(input)) return { ok: false, issues: [{ field: "", message: "must be a JSON object with name, description, source and parameters" }] };
  const issues: FieldIssue[] = [];
  for (const key of Object.keys(input)) if (!FIELDS.has(key)) issues.push({ field: key, message: "unknown field" });

  const { name, description, source, parameters } = input;
  const nameIssue = scriptNameIssue(name, taken);
  if (nameIssue) issues.push({ field: "name", message: nameIssue });

  if (typeof description !== "string" || description.trim() === "") issues.push({ field: "description", message: "is required and must not be blank" });
  else if (description.trim().length > MAX_SCRIPT_DESCRIPTION)
    issues.push({ field: "description", message: `must be at most ${MAX_SCRIPT_DESCRIPTION} characters (is ${description.trim().length})` });

  if (typeof source !== "string" || source.trim() === "")
    issues.push({ field: "source", message: "is required and must hold Python code, not only whitespace" });
  else {
    const bytes = new TextEncoder().encode(source).byteLength;
    if (bytes > MAX_SCRIPT_SOURCE_BYTES) issues.push({ field: "source", message: `must be at most ${MAX_SCRIPT_SOURCE_BYTES} bytes (is ${bytes})` });
  }

  if (parameters !== undefined && parameters !== null) {
    for (const issue of parameterSchemaIssues(parameters))
      issues.push({ field: issue.path ? `parameters.${issue.path}` : "parameters", message: issue.message });
  }

  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      name: name as string,
      description: (description as string).trim(),
      source: source as string,
      parameters: (parameters ?? null) as Record<string, unknown> | null,
    },
  };
}

/** Why `name` cannot name a script, or null when it can (SCRIPT-007..009). */
export function scriptNameIssue(name: unknown, taken: ReadonlySet<string>): string | null {
  if (typeof name !== "string" || name === "") return "is required";
  if (!SCRIPT_NAME_PATTERN.test(name)) return "must start with a lowercase letter, then lowercase letters, digits, _ or -, 63 characters at most";
  if (RESERVED_SCRIPT_NAMES.has(name)) return `"${name}" is reserved`;
  if (taken.has(name)) return `"${name}" is the name of a tool the agent has`;
  return null;
}

/** The refusal of arguments that are not one JSON object (ERR-016). */
export const ARGUMENTS_NOT_OBJECT = "arguments must be a JSON object";

/**
 * A script's arguments as the launcher gets them (SCRIPT-036): none is `{}`, a string is
 * read as JSON, and anything but a JSON object is refused.
 *
 * @example parseScriptArguments('{"n": 2}') // { ok: true, value: { n: 2 } }
 * @example parseScriptArguments([1]) // { ok: false, message: "arguments must be a JSON object" }
 */
export function parseScriptArguments(value: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; message: typeof ARGUMENTS_NOT_OBJECT } {
  if (value === undefined) return { ok: true, value: {} };
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { ok: false, message: ARGUMENTS_NOT_OBJECT };
    }
  }
  return isPlainObject(parsed) ? { ok: true, value: parsed } : { ok: false, message: ARGUMENTS_NOT_OBJECT };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
