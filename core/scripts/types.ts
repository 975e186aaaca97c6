/**
 * Scripts: reusable Python an agent keeps (SCRIPT-001). The words shared by the catalog,
 * the HTTP routes, the script tools and materialisation.
 */

/** Where a run materialises its scripts (OP-SCRIPT-1: the home is mounted at /home/agent). */
export const SCRIPTS_DIR = "/home/agent/scripts";
/** The language of every script (SCRIPT-011). */
export const SCRIPT_LANGUAGE = "python";
/** Seconds one run of a script may take unless the deployment sets SCRIPT_TIMEOUT_S (SCRIPT-034). */
export const SCRIPT_TIMEOUT_S = 120;
/**
 * Largest arguments object, serialised: GUILDS_SCRIPT_ARGS is one environment variable, and
 * Linux refuses a variable over 128 KiB when the command starts.
 */
export const SCRIPT_ARGUMENTS_MAX_BYTES = 100_000;
/** The launcher in both images (SBX-013). */
export const SCRIPT_LAUNCHER = "/usr/local/bin/guilds-script-run";

/** @example scriptPath("fetch_prices") // "/home/agent/scripts/fetch_prices.py" */
export function scriptPath(name: string): string {
  return `${SCRIPTS_DIR}/${name}.py`;
}

/** Who wrote a version: a run at the step (assistant row seq) that called script_create, or a person (an API token). */
export type ScriptAuthor = { kind: "run"; run_id: string; seq: number | null } | { kind: "person"; token_id: string; name: string };

/** One write of the catalog, validated (core/scripts/rules.ts). */
export interface ScriptWrite {
  name: string;
  description: string;
  source: string;
  /** A JSON Schema object of type object, or null: invoked through script_run only. */
  parameters: Record<string, unknown> | null;
}

/** A catalog row as the run snapshot records it (SCRIPT-020, EXACT-024). */
export interface ScriptSnapshotEntry {
  id: string;
  name: string;
  description: string;
  parameters: Record<string, unknown> | null;
  source: string;
  source_hash: string;
}

/** What changed in an agent's catalog: the guild event's action and name (SCRIPT-040, OP-SCRIPT-8: a replace is `create`). */
export type ScriptChange = { action: "create"; name: string } | { action: "delete"; name: string } | { action: "clear" };

/** The cap refused a new name (SCRIPT-013). */
export class ScriptLimitReached extends Error {
  constructor(readonly limit: number) {
    super(`this agent is limited to ${limit} scripts`);
  }
}
