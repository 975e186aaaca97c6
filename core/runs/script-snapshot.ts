/**
 * What a run takes from the script catalog at its creation (SCRIPT-020..022, EXACT-014):
 * every row as the snapshot records it, and a first-class tool for each row with parameters.
 */

import type { ScriptSnapshotEntry } from "../scripts/types";
import type { OfferedTool } from "./snapshot";

/**
 * The first-class tools of a run: one per snapshotted script whose parameters are set,
 * named after it, described by its description, its schema as the arguments. A name that
 * now collides with another offered tool is skipped (OP-SCRIPT-9): creation refused such
 * names, but a connected tool may have appeared since.
 *
 * @example scriptToolSchemas([{ name: "fx", description: "Rates", parameters: { type: "object" }, … }], new Set(["note_read"]))
 * // [{ type: "function", function: { name: "fx", description: "Rates", parameters: { type: "object" } } }]
 */
export function scriptToolSchemas(scripts: readonly ScriptSnapshotEntry[], taken: ReadonlySet<string>): OfferedTool[] {
  return scripts
    .filter((s) => s.parameters !== null && !taken.has(s.name))
    .map((s) => ({ type: "function", function: { name: s.name, description: s.description, parameters: s.parameters as Record<string, unknown> } }));
}

/** Whether a run offers a tool that executes a script in the box (script_run or a script's own tool). */
export function executesScripts(tools: readonly { function: { name: string } }[], nativeNames: ReadonlySet<string>): boolean {
  return tools.some((t) => t.function.name === "script_run" || !nativeNames.has(t.function.name));
}
