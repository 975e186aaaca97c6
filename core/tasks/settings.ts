/**
 * An organisation's task settings (the spec's runs.* and volumes.*), stored as JSON on the
 * organisation; a key it does not set takes its default. Numbers, but for
 * `runs.readyRequiresChecks`: whether a completed task's pull request waits for its checks.
 *
 * @example taskSettings({ "runs.maxConcurrent": 2 })["runs.keepAliveSeconds"] // 600
 */
import * as z from "zod";

export const TASK_SETTING_DEFAULTS = {
  "runs.maxConcurrent": 4,
  "runs.keepAliveSeconds": 600,
  "runs.maxAutoResumes": 3,
  // The first automatic restart's delay; each further one waits twice as long (OP-TASK-3).
  "runs.retryBaseSeconds": 30,
  // Wall-clock budget of one run (OP-TASK-7): past it the run is cancelled.
  "runs.wallClockSeconds": 7_200,
  "volumes.retainAfterCloseSeconds": 604_800,
  "volumes.idleTtlSeconds": 2_592_000,
  // complete_task marks the pull request ready only once the branch's checks pass (ISSUE-33).
  "runs.readyRequiresChecks": true,
} as const;

export type TaskSettings = {
  -readonly [K in keyof typeof TASK_SETTING_DEFAULTS]: (typeof TASK_SETTING_DEFAULTS)[K] extends boolean ? boolean : number;
};

const seconds = (max: number) => z.number().int().min(1).max(max);

/** What a PATCH may set: each key optional, whole numbers within sane bounds (a boolean for readyRequiresChecks). */
export const TaskSettingsPatch = z
  .object({
    "runs.maxConcurrent": z.number().int().min(1).max(64),
    "runs.keepAliveSeconds": seconds(86_400),
    "runs.maxAutoResumes": z.number().int().min(0).max(20),
    "runs.retryBaseSeconds": seconds(600),
    "runs.wallClockSeconds": seconds(86_400),
    "volumes.retainAfterCloseSeconds": seconds(31_536_000),
    "volumes.idleTtlSeconds": seconds(31_536_000),
    "runs.readyRequiresChecks": z.boolean(),
  })
  .partial()
  .strict();

/** The effective settings from the stored JSON; a stored value that no longer passes takes the default. */
export function taskSettings(stored: unknown): TaskSettings {
  const settings: TaskSettings = { ...TASK_SETTING_DEFAULTS };
  if (!stored || typeof stored !== "object") return settings;
  const shape = TaskSettingsPatch.shape;
  for (const key of Object.keys(TASK_SETTING_DEFAULTS) as (keyof TaskSettings)[]) {
    const parsed = shape[key].safeParse((stored as Record<string, unknown>)[key]);
    if (parsed.success && parsed.data !== undefined) (settings as Record<string, number | boolean>)[key] = parsed.data;
  }
  return settings;
}
