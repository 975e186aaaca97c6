import { describe, expect, it } from "vitest";
import { ScheduleCreate, SchedulePatch } from "./input";

const create = (cron: string) => ScheduleCreate.safeParse({ description: "Weekly check", instruction: "Look at the news", cron });
const issueOf = (r: ReturnType<typeof create>) => (r.success ? null : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));

describe("schedule bodies (SCHED-002)", () => {
  it("SCHED-002: a cron list with overlapping values is accepted on create and on update", () => {
    for (const cron of ["0 0 * * 0,7", "0 0 * * 1-5,3"]) {
      expect(issueOf(create(cron)), cron).toBeNull();
      expect(SchedulePatch.safeParse({ cron }).success, cron).toBe(true);
    }
  });

  it("SCHED-002: a bad cron still answers on the cron field", () => {
    expect(issueOf(create("61,1 * * * *"))).toEqual([{ path: "cron", message: expect.stringContaining("61") }]);
    expect(issueOf(create("0 0 9 * * *"))).toEqual([{ path: "cron", message: expect.stringContaining("seconds are not supported") }]);
  });
});
