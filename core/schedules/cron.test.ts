import { describe, expect, it } from "vitest";
import { cronRuns, nextCronRun, validateCron } from "./cron";

describe("cron schedules (SCHED-002)", () => {
  it("SCHED-002: accepts 5-field cron expressions", () => {
    for (const expr of ["* * * * *", "0 9 * * 1-5", "*/15 8-18 * * mon-fri", "30 6 1 jan,jul *", "0 0 L * *", "0 12 * * thu", " 0  9 * * * "]) {
      expect(validateCron(expr), expr).toEqual({ ok: true });
    }
  });

  it("SCHED-002: rejects seconds, macros and too few fields with a clear message", () => {
    const six = validateCron("0 0 9 * * *");
    expect(six).toEqual({ ok: false, message: expect.stringContaining("seconds are not supported") });
    expect(six.ok || six.message).toContain("got 6");
    expect(validateCron("@daily")).toEqual({ ok: false, message: expect.stringContaining("macros such as @daily") });
    expect(validateCron("* * *")).toEqual({ ok: false, message: expect.stringContaining("got 3") });
    expect(validateCron("")).toEqual({ ok: false, message: expect.stringContaining("got 0") });
    expect(validateCron("* * * * * * *").ok).toBe(false);
  });

  it("SCHED-002: rejects what cron-parser rejects, never-matching dates and the unseeded H form", () => {
    for (const expr of ["61 * * * *", "* 24 * * *", "*/0 * * * *", "foo * * * *", "0 0 30 2 *", "0 0 31 4 *", "H * * * *", "H/5 * * * *"]) {
      const check = validateCron(expr);
      expect(check.ok, expr).toBe(false);
      expect(check.ok || check.message.length > 10, expr).toBe(true);
    }
    expect(validateCron("61 * * * *")).toEqual({ ok: false, message: expect.stringMatching(/^invalid cron expression: .*61/) });
  });

  it("SCHED-002: lists with overlapping values, as Vixie cron and cronie take them, are accepted and match each minute once", () => {
    for (const expr of ["0 0 * * 0,7", "0 0 * * 1-5,3", "0 0 * * sun,7", "0,0,30 * * * *", "*/15,30 * * * *", "0 0 1,L * *", "0 0 * jan,1,feb *"]) {
      expect(validateCron(expr), expr).toEqual({ ok: true });
    }
    const runs = (expr: string, from: string, count: number) => cronRuns(expr, new Date(from), count).map((d) => d.toISOString().slice(0, 16));
    // Sunday as 0 and as 7: every Sunday once (2026-01-04 is a Sunday).
    expect(runs("0 0 * * 0,7", "2026-01-01T00:00:00Z", 3)).toEqual(["2026-01-04T00:00", "2026-01-11T00:00", "2026-01-18T00:00"]);
    // Wednesday inside 1-5 and listed again: the working week, Wednesday once.
    expect(runs("0 0 * * 1-5,3", "2026-01-04T00:00:00Z", 6)).toEqual([
      "2026-01-05T00:00",
      "2026-01-06T00:00",
      "2026-01-07T00:00",
      "2026-01-08T00:00",
      "2026-01-09T00:00",
      "2026-01-12T00:00",
    ]);
    expect(runs("*/15,30 * * * *", "2026-01-01T00:00:00Z", 4)).toEqual(["2026-01-01T00:15", "2026-01-01T00:30", "2026-01-01T00:45", "2026-01-01T01:00"]);
    // The same minutes as the list written without overlap, 7 in a range included.
    expect(runs("0 0 * * 5-7,0", "2026-01-01T00:00:00Z", 12)).toEqual(runs("0 0 * * 5,6,0", "2026-01-01T00:00:00Z", 12));
    expect(nextCronRun("0 0 * * 0,7", new Date("2026-01-04T00:00:00Z")).toISOString()).toBe("2026-01-11T00:00:00.000Z");
    // Overlap does not excuse an out-of-range value or a date that never comes.
    expect(validateCron("61,1 * * * *")).toEqual({ ok: false, message: expect.stringMatching(/^invalid cron expression: .*61/) });
    expect(validateCron("0 0 30,30 2 *").ok).toBe(false);
  });

  it("SCHED-002: next run is strictly after the given instant, in UTC", () => {
    expect(nextCronRun("0 9 * * *", new Date("2026-01-01T08:59:59.999Z")).toISOString()).toBe("2026-01-01T09:00:00.000Z");
    expect(nextCronRun("0 9 * * *", new Date("2026-01-01T09:00:00.000Z")).toISOString()).toBe("2026-01-02T09:00:00.000Z");
    expect(nextCronRun("0 9 * * *", new Date("2026-01-01T09:00:00.400Z")).toISOString()).toBe("2026-01-02T09:00:00.000Z");
    // UTC all year: no daylight-saving shift in March.
    expect(nextCronRun("30 1 * * *", new Date("2026-03-29T00:00:00Z")).toISOString()).toBe("2026-03-29T01:30:00.000Z");
    expect(nextCronRun("0 0 * * 1#2", new Date("2026-01-01T00:00:00Z")).toISOString()).toBe("2026-01-12T00:00:00.000Z");
  });

  it("SCHED-002: previews list the next runs in order, and invalid expressions throw", () => {
    expect(cronRuns("0 */6 * * *", new Date("2026-01-01T05:00:00Z"), 3).map((d) => d.toISOString())).toEqual([
      "2026-01-01T06:00:00.000Z",
      "2026-01-01T12:00:00.000Z",
      "2026-01-01T18:00:00.000Z",
    ]);
    expect(cronRuns("* * * * *", new Date(0), 0)).toEqual([]);
    expect(() => nextCronRun("0 0 9 * * *", new Date())).toThrow(/5 fields/);
    expect(() => cronRuns("bad", new Date(), 2)).toThrow();
  });
});
