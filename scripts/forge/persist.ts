/**
 * The forge's state on disk beside its repositories (`<root>/forge-state.json`), so a second
 * start of the stack finds the repositories, installations and tokens the database still
 * names. Written whole to a temporary file and renamed over the old one, so a crash mid-write
 * leaves the previous state, never half of one.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ForgeState, type SavedForgeState } from "./state";

/** Owners are GitHub logins (no dots), so this name never meets a repository folder. */
export const stateFile = (root: string) => join(root, "forge-state.json");

/** The saved state under `root`, or an empty one when there is none yet. */
export function loadForgeState(root: string): ForgeState {
  const file = stateFile(root);
  if (!existsSync(file)) return new ForgeState();
  return ForgeState.fromJSON(JSON.parse(readFileSync(file, "utf8")) as SavedForgeState);
}

export function saveForgeState(root: string, state: ForgeState): void {
  const file = stateFile(root);
  const temporary = `${file}.${process.pid}.tmp`;
  // Minted tokens are in it: readable by the stack's user only, like the Postgres data.
  writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
  renameSync(temporary, file);
}
