import { describe, expect, it } from "vitest";
import { messageRefusal, type RunFacts, resumeRefusal, runLabel, statusAfterGeneration } from "./rules";

const run = (over: Partial<RunFacts> = {}): RunFacts => ({
  kind: "direct",
  status: "active",
  archivedAt: null,
  metadata: {},
  errors: [],
  ...over,
});

describe("run rules", () => {
  it("RUN-002: an active direct run accepts messages", () => {
    expect(messageRefusal(run())).toBeNull();
  });

  it("RUN-006: a group or schedule run refuses messages until resumed_at is set", () => {
    expect(messageRefusal(run({ kind: "schedule" }))?.code).toBe("run.not_accepting_messages");
    expect(messageRefusal(run({ kind: "group", status: "completed" }))?.code).toBe("run.not_accepting_messages");
    expect(messageRefusal(run({ kind: "schedule", metadata: { resumed_at: "2026-01-01T00:00:00Z" } }))).toBeNull();
  });

  it("GEN-018: after generation.max_tool_calls messages and resume are refused", () => {
    const capped = run({ status: "completed", errors: [{ code: "generation.max_tool_calls" }] });
    expect(messageRefusal(capped)?.details?.reason).toBe("generation.max_tool_calls");
    expect(resumeRefusal(capped)?.details?.reason).toBe("generation.max_tool_calls");
  });

  it("CANCEL-012: resume refuses archived, continued, limit-hit and not-completed runs", () => {
    expect(resumeRefusal(run({ status: "completed", archivedAt: new Date() }))?.details?.reason).toBe("archived");
    expect(resumeRefusal(run({ status: "completed", metadata: { continued_by_run_id: "r2" } }))?.code).toBe("run.continued");
    expect(resumeRefusal(run({ status: "completed", errors: [{ code: "generation.max_input_tokens" }] }))?.code).toBe("run.not_resumable");
    expect(resumeRefusal(run({ status: "completed", errors: [{ code: "generation.max_chain" }] }))?.code).toBe("run.not_resumable");
    expect(resumeRefusal(run({ status: "active" }))?.details?.reason).toBe("not_completed");
    expect(resumeRefusal(run({ status: "completed", errors: [{ code: "generation.cancelled" }] }))).toBeNull();
  });

  it("CHAIN-018: a message to a continued run names the latest run", () => {
    expect(messageRefusal(run({ metadata: { continued_by_run_id: "r9" } }))).toMatchObject({ code: "run.continued", details: { latest_run_id: "r9" } });
  });

  it("GEN-012 / GEN-017 / GEN-020: status after a generation", () => {
    expect(statusAfterGeneration(run(), [])).toBe("active");
    expect(statusAfterGeneration(run({ kind: "group" }), [])).toBe("completed");
    expect(statusAfterGeneration(run({ kind: "schedule", metadata: { resumed_at: "x" } }), [])).toBe("active");
    expect(statusAfterGeneration(run(), ["generation.max_tool_calls"])).toBe("completed");
    expect(statusAfterGeneration(run(), ["generation.max_input_tokens"])).toBe("completed");
    expect(statusAfterGeneration(run(), ["generation.cancelled"])).toBe("active");
  });

  it("RUN-009: history labels schedule runs Schedule wake-up", () => {
    expect(runLabel("schedule", null)).toBe("Schedule wake-up");
    expect(runLabel("direct", null)).toBe("New chat");
    expect(runLabel("direct", "Plan the week")).toBe("Plan the week");
  });

  it("CANCEL-016: resume on a continued run is refused with run.continued naming the latest run", () => {
    expect(resumeRefusal(run({ status: "completed", metadata: { continued_by_run_id: "r9" } }))).toMatchObject({
      code: "run.continued",
      details: { latest_run_id: "r9" },
    });
  });

  it("RUN-024: an archived run refuses messages and resume, whatever its kind and status", () => {
    for (const kind of ["direct", "group", "schedule"] as const) {
      for (const status of ["active", "completed"] as const) {
        const archived = run({ kind, status, archivedAt: "2026-01-01T00:00:00Z", metadata: { resumed_at: "2026-01-01T00:00:00Z" } });
        expect(messageRefusal(archived)).toMatchObject({ code: "run.not_accepting_messages", message: "The run is archived" });
        expect(resumeRefusal(archived)).toMatchObject({ code: "run.not_resumable", details: { reason: "archived" } });
      }
    }
  });
});

describe("task runs", () => {
  it("TASK-019: a task run takes no message or resume of its own; its task does", () => {
    const task = run({ kind: "task", metadata: { task_id: "t1" } });
    expect(messageRefusal(task)).toMatchObject({ code: "run.not_accepting_messages", details: { task_id: "t1" } });
    expect(resumeRefusal(run({ kind: "task", status: "completed" }))?.code).toBe("run.not_accepting_messages");
    expect(statusAfterGeneration(task, [])).toBe("active");
  });
});
