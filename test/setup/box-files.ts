/**
 * The test files that run the container engine's boxes, or a whole stack of their own
 * (Postgres, wrangler dev, the engine), with the seconds each took on 2 cores. They run one
 * at a time, in this order, beside the other files (./box-turn.ts, ./sequencer.ts): run side
 * by side, boxes of different stacks failed to start ("Container failed to start") or to
 * save their home in time, and a stack starting or stopping sweeps the engine for its
 * Worker's leftovers.
 */
export const BOX_FILES: ReadonlyArray<readonly [path: string, seconds: number]> = [
  ["test/e2e/hostile-tenant.test.ts", 150],
  ["test/e2e/forge-loop.test.ts", 150],
  ["test/e2e/tasks.test.ts", 82],
  ["test/e2e/task-turns.test.ts", 130],
  ["test/e2e/claude-code.test.ts", 75],
  // Not timed yet: two task runs of one box each, about a third of tasks.test.ts's three.
  ["test/e2e/task-budget.test.ts", 60],
  ["test/e2e/hostile-push.test.ts", 60],
  ["test/e2e/sandbox-lifecycle.test.ts", 75],
  ["test/e2e/scripts.test.ts", 57],
  ["test/e2e/restart.test.ts", 45],
  ["test/e2e/sandbox-views.test.ts", 39],
  ["test/e2e/coding.test.ts", 34],
  ["test/e2e/power-loss.test.ts", 31],
  ["test/e2e/postgres-outage.test.ts", 31],
  ["test/e2e/sandbox-browser.test.ts", 22],
  ["test/e2e/postgres-freeze.test.ts", 19],
  ["test/e2e/contract.test.ts", 17],
  ["test/browser/sandbox-tabs.test.ts", 15],
  ["test/browser/sandbox-home.test.ts", 12],
  ["test/browser/run-changes.test.ts", 12],
  ["test/browser/console.test.ts", 12],
  ["test/browser/tasks.test.ts", 10],
  ["test/browser/run-chain.test.ts", 10],
  ["test/e2e/forge.test.ts", 7],
  // Not timed yet: two agents, one idle timeout.
  ["test/e2e/warm-pool.test.ts", 40],
];

/** The seconds of the slowest other files, and of a typical file of each project. */
export const OTHER_SECONDS: Readonly<Record<string, number>> = {
  "test/e2e/concurrency.test.ts": 69,
  e2e: 8,
  browser: 9,
  images: 5,
  workers: 2,
  "workers-eviction": 2,
  unit: 0.6,
};

/** The file's path from the project's root, as the lists above name it. */
export function relativePath(moduleId: string): string {
  const at = moduleId.lastIndexOf("/test/");
  return at >= 0 ? moduleId.slice(at + 1) : moduleId;
}

export function isBoxFile(moduleId: string): boolean {
  const path = relativePath(moduleId);
  return BOX_FILES.some(([file]) => file === path);
}
