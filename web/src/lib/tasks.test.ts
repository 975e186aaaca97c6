import { describe, expect, it } from "vitest";
import {
  boardColumns,
  columnOf,
  duration,
  type HeldRun,
  mergeMessages,
  mergeRuns,
  newerTask,
  outcomeText,
  runDuration,
  shownRun,
  statusText,
  TASK_COLUMNS,
  taskActions,
  withNewerTasks,
} from "./tasks";

const ALL_STATUSES = ["queued", "running", "waiting", "blocked", "rate_limited", "limit_reached", "in_review", "completed", "cancelled", "failed"];

const task = (key: string, status: string, updated = "2026-05-01T10:00:00Z") => ({
  id: key.toLowerCase(),
  key,
  status,
  created_at: "2026-05-01T09:00:00Z",
  updated_at: updated,
});

describe("the task board's columns", () => {
  it("UI: every task status has exactly one column, in the board's order Queued, Running, Waiting for you, In review, Done", () => {
    expect(TASK_COLUMNS.map((c) => c.label)).toEqual(["Queued", "Running", "Waiting for you", "In review", "Done"]);
    expect(TASK_COLUMNS.flatMap((c) => c.statuses).sort()).toEqual([...ALL_STATUSES].sort());
    expect(ALL_STATUSES.map(columnOf)).toEqual(["queued", "running", "waiting", "waiting", "queued", "waiting", "review", "done", "done", "done"]);
  });

  it("UI: an unknown status stays on the board under Queued", () => {
    expect(columnOf("paused")).toBe("queued");
  });

  it("UI: the tasks are grouped by column, empty columns kept, the last moved first and ties by key in number order", () => {
    const columns = boardColumns([
      task("WEB-2", "queued", "2026-05-01T10:00:00Z"),
      task("WEB-10", "rate_limited", "2026-05-01T10:00:00Z"),
      task("WEB-3", "blocked", "2026-05-01T10:05:00Z"),
      task("WEB-4", "waiting", "2026-05-01T10:06:00Z"),
      task("WEB-5", "failed"),
    ]);
    const keys = Object.fromEntries(columns.map((c) => [c.key, c.tasks.map((t) => t.key)]));
    expect(keys).toEqual({ queued: ["WEB-2", "WEB-10"], running: [], waiting: ["WEB-4", "WEB-3"], review: [], done: ["WEB-5"] });
  });
});

describe("a late answer never undoes the user's action", () => {
  it("UI: of two copies of a task, the one changed later wins; equal times take the answer", () => {
    const cancelled = task("WEB-1", "cancelled", "2026-05-01T10:00:05Z");
    const stale = task("WEB-1", "running", "2026-05-01T10:00:01Z");
    expect(newerTask(cancelled, stale)).toBe(cancelled);
    expect(newerTask(stale, cancelled)).toBe(cancelled);
    const same = task("WEB-1", "waiting", cancelled.updated_at);
    expect(newerTask(cancelled, same)).toBe(same);
    expect(newerTask(null, stale)).toBe(stale);
  });

  it("UI: a listed answer keeps the page's newer copies, and drops what it no longer lists", () => {
    const held = [task("WEB-1", "cancelled", "2026-05-01T10:00:05Z"), task("WEB-2", "queued")];
    const answer = [task("WEB-1", "running", "2026-05-01T10:00:01Z"), task("WEB-3", "queued")];
    expect(withNewerTasks(held, answer).map((t) => `${t.key}:${t.status}`)).toEqual(["WEB-1:cancelled", "WEB-3:queued"]);
  });

  it("UI: a task listed twice in one answer (it moved between the open and the closed read) shows once, as its newer copy", () => {
    const running = task("WEB-4", "running", "2026-05-01T10:00:01Z");
    const done = task("WEB-4", "completed", "2026-05-01T10:00:02Z");
    expect(withNewerTasks([], [running, done])).toEqual([done]);
    expect(withNewerTasks([], [done, running])).toEqual([done]);
  });

  it("TASK-019: a message just sent stays listed (queued) until an answer lists it, and a delivered one never turns queued again", () => {
    const sent = { id: "m2", content: "also this", created_at: "2026-05-01T10:01:00Z", delivered_at: null as string | null };
    const first = { id: "m1", content: "first", created_at: "2026-05-01T10:00:00Z", delivered_at: null as string | null };
    const firstDelivered = { ...first, delivered_at: "2026-05-01T10:00:30Z" };
    expect(mergeMessages([sent], [first])).toEqual([first, sent]);
    expect(mergeMessages([firstDelivered, sent], [first])).toEqual([firstDelivered, sent]);
    expect(mergeMessages([first], [firstDelivered])).toEqual([firstDelivered]);
  });

  it("UI: an ended run never shows as active again; runs are listed oldest first", () => {
    const active: HeldRun = { id: "r2", run_id: "x2", outcome: null, created_at: "2026-05-01T10:05:00Z", ended_at: null };
    const ended: HeldRun = { ...active, outcome: "end_turn", ended_at: "2026-05-01T10:15:00Z" };
    const earlier: HeldRun = { id: "r1", run_id: "x1", outcome: "cancelled", created_at: "2026-05-01T10:00:00Z", ended_at: "2026-05-01T10:01:00Z" };
    expect(mergeRuns([ended], [active, earlier])).toEqual([earlier, ended]);
    expect(mergeRuns([active], [ended])).toEqual([ended]);
  });
});

describe("the task page's wording", () => {
  it("UI: the transcript shown is the active run's, else the latest run's", () => {
    const r1: HeldRun = { id: "r1", run_id: "x1", outcome: "end_turn", created_at: "2026-05-01T10:00:00Z", ended_at: "2026-05-01T10:10:00Z" };
    const r2: HeldRun = { id: "r2", run_id: "x2", outcome: null, created_at: "2026-05-01T10:20:00Z", ended_at: null };
    expect(shownRun([r1, r2])).toBe(r2);
    expect(shownRun([r1])).toBe(r1);
    expect(shownRun([])).toBeNull();
  });

  it("UI: durations read in seconds, minutes or hours; an active run counts to now", () => {
    expect([0, 42_000, 60_000, 75_400, 3_600_000, 5_460_000, -1].map(duration)).toEqual(["0 s", "42 s", "1 min", "1 min 15 s", "1 h", "1 h 31 min", "–"]);
    const now = new Date("2026-05-01T10:02:00Z").getTime();
    expect(runDuration({ created_at: "2026-05-01T10:00:00Z", ended_at: null }, now)).toBe("2 min");
    expect(runDuration({ created_at: "2026-05-01T10:00:00Z", ended_at: "2026-05-01T10:00:30Z" }, now)).toBe("30 s");
  });

  it("TASK-024..031: each run outcome reads in words; no outcome is an active run", () => {
    expect(outcomeText(null)).toBe("Active");
    expect(outcomeText("end_turn")).toContain("Released");
    expect(outcomeText("something_new")).toBe("something_new");
    expect(statusText("rate_limited")).toBe("rate limited");
  });

  it("TASK-038: the status menu offers Cancel on an open task, Mark done on any task not completed, Reset workspace always", () => {
    expect(taskActions("waiting")).toEqual({ cancel: true, done: true, reset: true });
    expect(taskActions("in_review")).toEqual({ cancel: true, done: true, reset: true });
    for (const s of ["cancelled", "failed"]) expect(taskActions(s)).toEqual({ cancel: false, done: true, reset: true });
    expect(taskActions("completed")).toEqual({ cancel: false, done: false, reset: true });
  });
});
