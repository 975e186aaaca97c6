import { describe, expect, it } from "vitest";
import { type DueTask, isDue, nextDueAt, planStarts, retryDelayMs, statusAfterRun } from "./outcome";

const now = 1_000_000_000;
const endedWith = (outcome: Parameters<typeof statusAfterRun>[0]["outcome"], extra: Partial<Parameters<typeof statusAfterRun>[0]> = {}) =>
  statusAfterRun({ outcome, current: "running", autoResumes: 0, undelivered: 0, ...extra }, 3, now);

describe("task outcomes", () => {
  it("TASK-024: completed makes the task in_review", () => {
    expect(endedWith("completed").status).toBe("in_review");
  });
  it("TASK-025: end_turn makes the task waiting", () => {
    expect(endedWith("end_turn").status).toBe("waiting");
  });
  it("TASK-033: a run that handed off queues the task at once for the run that goes on from its notes", () => {
    expect(endedWith("handed_off")).toEqual({ status: "queued", resumeAt: null, autoResumes: 0 });
  });
  it("TASK-026: blocked makes the task blocked", () => {
    expect(endedWith("blocked").status).toBe("blocked");
  });
  it("TASK-027: rate_limited waits until the provider's reset, or a minute when it gave none", () => {
    expect(endedWith("rate_limited", { resetAt: now + 90_000 })).toEqual({ status: "rate_limited", resumeAt: now + 90_000, autoResumes: 0 });
    expect(endedWith("rate_limited", { resetAt: null }).resumeAt).toBe(now + 60_000);
  });
  it("TASK-028: limit_reached makes the task limit_reached", () => {
    expect(endedWith("limit_reached").status).toBe("limit_reached");
  });
  it("TASK-029: a lost sandbox queues the task again with a growing delay, then fails it past maxAutoResumes", () => {
    expect(endedWith("sandbox_lost")).toEqual({ status: "queued", resumeAt: now + 30_000, autoResumes: 1 });
    expect(endedWith("connect_timeout", { autoResumes: 1 })).toEqual({ status: "queued", resumeAt: now + 60_000, autoResumes: 2 });
    expect(endedWith("provisioning_failed", { autoResumes: 2 })).toEqual({ status: "queued", resumeAt: now + 120_000, autoResumes: 3 });
    expect(endedWith("sandbox_lost", { autoResumes: 3 }).status).toBe("failed");
    expect(retryDelayMs(20)).toBe(600_000);
  });
  it("TASK-030: cancelled makes the task waiting; a cancelled task stays cancelled and one marked done stays completed", () => {
    expect(endedWith("cancelled").status).toBe("waiting");
    expect(endedWith("cancelled", { current: "cancelled" }).status).toBe("cancelled");
    expect(endedWith("end_turn", { current: "completed" }).status).toBe("completed");
    expect(endedWith("completed", { current: "cancelled", undelivered: 2 }).status).toBe("cancelled");
  });
  it("TASK-031: failed makes the task failed", () => {
    expect(endedWith("failed").status).toBe("failed");
  });
  it("TASK-032: undelivered messages make the task queued instead of the mapped status", () => {
    expect(endedWith("end_turn", { undelivered: 1 })).toEqual({ status: "queued", resumeAt: null, autoResumes: 0 });
    expect(endedWith("blocked", { undelivered: 1 }).status).toBe("queued");
    expect(endedWith("rate_limited", { undelivered: 1, resetAt: now + 5_000 }).status).toBe("rate_limited");
  });
});

const task = (id: string, extra: Partial<DueTask> = {}): DueTask => ({
  id,
  status: "queued",
  queuedAt: now - 1_000,
  resumeAt: null,
  createdAt: now - 1_000,
  ...extra,
});

describe("task scheduling", () => {
  it("TASK-006: a task is due when queued or rate_limited and its resume time has passed", () => {
    expect(isDue({ status: "queued", resumeAt: null }, now)).toBe(true);
    expect(isDue({ status: "queued", resumeAt: now + 1 }, now)).toBe(false);
    expect(isDue({ status: "rate_limited", resumeAt: now }, now)).toBe(true);
    expect(isDue({ status: "rate_limited", resumeAt: now + 1 }, now)).toBe(false);
    for (const status of ["running", "waiting", "blocked", "in_review", "completed", "cancelled", "failed"] as const) {
      expect(isDue({ status, resumeAt: null }, now), status).toBe(false);
    }
  });
  it("TASK-007: at most maxConcurrent run, the oldest due first", () => {
    const tasks = [
      task("c", { queuedAt: now - 10 }),
      task("a", { queuedAt: now - 30 }),
      task("d", { queuedAt: now - 40, resumeAt: now - 5 }),
      task("b", { queuedAt: now - 20 }),
      task("later", { resumeAt: now + 10 }),
    ];
    expect(planStarts(tasks, new Set(), 3, now)).toEqual(["a", "b", "c"]); // d became due last, at its resume time
    expect(planStarts(tasks, new Set(["x", "y"]), 3, now)).toEqual(["a"]);
    expect(planStarts(tasks, new Set(["x", "y", "z"]), 3, now)).toEqual([]);
    expect(nextDueAt(tasks, now)).toBe(now + 10);
  });
  it("TASK-008: a task with an active run is never started again", () => {
    expect(planStarts([task("a"), task("b")], new Set(["a"]), 4, now)).toEqual(["b"]);
  });
});
