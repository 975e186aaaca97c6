import { describe, expect, it } from "vitest";
import { TASK_SETTING_DEFAULTS } from "./settings";
import { CANCELLABLE, DONE_FROM, QUEUED_BY_MESSAGE, volumeExpiresAt } from "./transitions";

const DAY = 86_400_000;

describe("task transitions", () => {
  it("TASK-019 / TASK-032: a message queues a waiting, blocked or closed task, never a running or already due one", () => {
    expect(QUEUED_BY_MESSAGE).toEqual(["waiting", "blocked", "limit_reached", "in_review", "completed", "cancelled", "failed"]);
  });
  it("TASK-030: cancel moves open tasks only; done moves anything not completed", () => {
    expect(CANCELLABLE).not.toContain("completed");
    expect(CANCELLABLE).not.toContain("cancelled");
    expect(CANCELLABLE).toContain("running");
    expect(DONE_FROM).toContain("cancelled");
    expect(DONE_FROM).not.toContain("completed");
  });
  it("TASK-037: a volume expires 7 days after its task closed or 30 days after its last run, whichever is first", () => {
    const settings = { ...TASK_SETTING_DEFAULTS };
    expect(volumeExpiresAt({ closedAt: null, lastRunEndedAt: null }, settings)).toBeNull();
    expect(volumeExpiresAt({ closedAt: 0, lastRunEndedAt: null }, settings)).toBe(7 * DAY);
    expect(volumeExpiresAt({ closedAt: null, lastRunEndedAt: 0 }, settings)).toBe(30 * DAY);
    expect(volumeExpiresAt({ closedAt: 10 * DAY, lastRunEndedAt: 0 }, settings)).toBe(17 * DAY);
    expect(volumeExpiresAt({ closedAt: 30 * DAY, lastRunEndedAt: 0 }, settings)).toBe(30 * DAY);
  });
});
