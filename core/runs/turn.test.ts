import { describe, expect, it } from "vitest";
import { turnOutcome } from "./turn";

describe("a turn's outcome", () => {
  it("GEN-012: a direct chat's reply leaves the run active: the next message is the next step", () => {
    expect(turnOutcome({ status: "active", errors: [] }, false)).toEqual({ next: "step", status: "active", errors: [] });
  });

  it("GEN-012: a one-shot run's generation ends it", () => {
    expect(turnOutcome({ status: "completed", errors: [] }, false)).toEqual({ next: "end", status: "completed", errors: [] });
  });

  it("CHAIN-003: a hand-off carries its text to the continuation; CHAIN-019: a cancelled one is not followed", () => {
    expect(turnOutcome({ status: "completed", errors: [], handoff: { text: "notes" } }, false)).toMatchObject({ next: "handoff", text: "notes" });
    expect(turnOutcome({ status: "completed", errors: [], handoff: { text: null } }, false)).toMatchObject({ next: "handoff", text: null });
    expect(turnOutcome({ status: "completed", errors: [], handoff: { text: "notes" } }, true)).toMatchObject({ next: "end" });
  });

  it("GEN-018: a cap or the spend limit is a limit, named by its code, before any other error", () => {
    const errors = [{ code: "provider.error" }, { code: "generation.max_steps" }];
    expect(turnOutcome({ status: "active", errors }, false)).toEqual({ next: "limit", status: "active", code: "generation.max_steps", errors });
    expect(turnOutcome({ status: "active", errors: [{ code: "usage.spend_limit" }] }, false)).toMatchObject({ next: "limit", code: "usage.spend_limit" });
  });

  it("CANCEL-001: a cancel, a provider failure or a lost box is an error that keeps its errors", () => {
    for (const code of ["generation.cancelled", "provider.error", "sandbox.lost", "generation.failed"]) {
      expect(turnOutcome({ status: "active", errors: [{ code }] }, false)).toEqual({ next: "error", status: "active", errors: [{ code }] });
    }
  });
});
