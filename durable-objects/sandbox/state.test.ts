import { describe, expect, it } from "vitest";
import type { SandboxRow } from "./record";
import { describeState, type StateInputs } from "./state";

const row = (running: boolean): SandboxRow => ({
  box: "standard",
  metadata: { agent_id: "a1", box: "standard" } as SandboxRow["metadata"],
  container: null,
  token: "t",
  running,
  armedAt: null,
  destroyAfterGeneration: false,
  createdAt: 0,
});

const inputs = (over: Partial<StateInputs>): StateInputs => ({
  row: null,
  starting: null,
  idleDue: null,
  off: undefined,
  failure: null,
  saved: null,
  failedSave: null,
  ...over,
});

describe("the sandbox state", () => {
  it("SBX-036: a failed save shows as sandbox.home_save_failed with its cause, attempts and next attempt, next to the saved home", () => {
    const state = describeState(
      inputs({
        row: row(true),
        idleDue: Date.UTC(2026, 0, 1, 0, 0, 8),
        saved: { bytes: 4096, savedAt: new Date(Date.UTC(2026, 0, 1)) },
        failedSave: { code: "workspace.full", message: "over its limit of 1 MiB", at: Date.UTC(2026, 0, 1, 0, 0, 4), attempts: 3 },
      }),
    );
    expect(state).toEqual({
      box: "standard",
      status: "running",
      idle_deadline: "2026-01-01T00:00:08.000Z",
      saved_home: { bytes: 4096, saved_at: "2026-01-01T00:00:00.000Z" },
      home_save_error: {
        code: "sandbox.home_save_failed",
        cause: "workspace.full",
        message: "over its limit of 1 MiB",
        failed_at: "2026-01-01T00:00:04.000Z",
        attempts: 3,
        next_attempt_at: "2026-01-01T00:00:08.000Z",
      },
    });
  });

  it("SBX-018: without a failed save the state says only where the box stands", () => {
    expect(describeState(inputs({}))).toEqual({ box: null, status: "none", saved_home: null });
    expect(describeState(inputs({ starting: "lite" }))).toEqual({ box: "lite", status: "starting", saved_home: null });
    expect(describeState(inputs({ row: row(false), failure: { code: "sandbox.unavailable", message: "no engine", at: 1 } }))).toEqual({
      box: "standard",
      status: "unavailable",
      reason: "no engine",
      saved_home: null,
    });
  });
});
