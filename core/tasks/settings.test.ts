import { describe, expect, it } from "vitest";
import { taskKey, volumeName, wipBranch } from "./key";
import { TASK_SETTING_DEFAULTS, TaskSettingsPatch, taskSettings } from "./settings";

describe("task settings and keys", () => {
  it("TASK-007 / TASK-020 / TASK-029 / TASK-037: settings take the spec's defaults for keys not set", () => {
    expect(taskSettings({})).toEqual(TASK_SETTING_DEFAULTS);
    expect(taskSettings({ "runs.maxConcurrent": 2, "runs.keepAliveSeconds": "x" })).toEqual({ ...TASK_SETTING_DEFAULTS, "runs.maxConcurrent": 2 });
    expect(TASK_SETTING_DEFAULTS["volumes.retainAfterCloseSeconds"]).toBe(7 * 86_400);
    expect(TASK_SETTING_DEFAULTS["volumes.idleTtlSeconds"]).toBe(30 * 86_400);
    expect(TaskSettingsPatch.safeParse({ "runs.maxConcurrent": 0 }).success).toBe(false);
    expect(TaskSettingsPatch.safeParse({ "runs.other": 1 }).success).toBe(false);
  });
  it("ISSUE-33: runs.readyRequiresChecks is on by default, a boolean, and a stored value of another type takes the default", () => {
    expect(taskSettings({})["runs.readyRequiresChecks"]).toBe(true);
    expect(taskSettings({ "runs.readyRequiresChecks": false })["runs.readyRequiresChecks"]).toBe(false);
    expect(taskSettings({ "runs.readyRequiresChecks": "no" })["runs.readyRequiresChecks"]).toBe(true);
    expect(TaskSettingsPatch.safeParse({ "runs.readyRequiresChecks": 0 }).success).toBe(false);
  });
  it("TASK-005 / TASK-036: keys name the branch, the WIP ref and the volume", () => {
    expect(taskKey("acme/web-app", 12)).toBe("WEBAPP-12");
    expect(taskKey("acme/---", 1)).toBe("TASK-1");
    expect(wipBranch("WEBAPP-12")).toBe("factory/wip/WEBAPP-12");
    expect(volumeName("WEBAPP-12")).toBe("task-webapp-12");
  });
});
