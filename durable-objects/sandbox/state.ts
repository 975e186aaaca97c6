/**
 * `sandboxState`: the agent's box as the console and `GET /api/agents/:id/sandbox` show it,
 * from what the object knows without calling the box: its record, the idle deadline, the
 * last failed start, the last failed save of the home, and the saved home in R2.
 */
import type { Box } from "../../core/sandbox/metadata";
import type { HomeSaveFailure, SandboxFailure, SandboxRow } from "./record";

export interface SandboxState {
  box: Box | null;
  status: "none" | "starting" | "running" | "unavailable";
  reason?: string;
  idle_deadline?: string;
  /** The last save of the home failed (SBX-036): the box is kept and the save retried. */
  home_save_error?: { code: "sandbox.home_save_failed"; cause: string; message: string; failed_at: string; attempts: number; next_attempt_at?: string };
  /** The home saved in R2, which the next box restores; null when there is none. */
  saved_home: { bytes: number; saved_at: string } | null;
}

export interface StateInputs {
  row: SandboxRow | null;
  /** The box an ensure is bringing up. */
  starting: Box | null;
  idleDue: number | null;
  /** Why this stack runs without containers, when it says so. */
  off: string | undefined;
  failure: SandboxFailure | null;
  saved: { bytes: number; savedAt: Date } | null;
  failedSave: HomeSaveFailure | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function describeState(inputs: StateInputs): SandboxState {
  const { row, idleDue, failedSave, saved } = inputs;
  const box = row?.box ?? null;
  const home = {
    saved_home: saved ? { bytes: saved.bytes, saved_at: saved.savedAt.toISOString() } : null,
    ...(failedSave
      ? {
          home_save_error: {
            code: "sandbox.home_save_failed" as const,
            cause: failedSave.code,
            message: failedSave.message,
            failed_at: iso(failedSave.at),
            attempts: failedSave.attempts,
            // While a save fails, the idle deadline is its next attempt.
            ...(idleDue ? { next_attempt_at: iso(idleDue) } : {}),
          },
        }
      : {}),
  };
  if (inputs.starting) return { box: inputs.starting, status: "starting", ...home };
  if (row?.running) return { box, status: "running", ...(idleDue ? { idle_deadline: iso(idleDue) } : {}), ...home };
  // Known before any ensure: the stack runs without containers, and says why.
  if (inputs.off) return { box, status: "unavailable", reason: `Sandboxes are not available here: ${inputs.off}`, ...home };
  if (inputs.failure?.code === "sandbox.unavailable") return { box, status: "unavailable", reason: inputs.failure.message, ...home };
  return { box, status: "none", ...home };
}
