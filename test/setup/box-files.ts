import { relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The test files that run the container engine's boxes, on the shared stack or on a stack of
 * their own, with the seconds each held the turn on 2 cores. They run one at a time, in this
 * order, beside the other files (./turn.ts, ./sequencer.ts): run side by side, boxes of
 * different stacks failed to start ("Container failed to start") or to save their home in
 * time, and a stack starting or stopping sweeps the engine for its Worker's leftovers.
 */
export const BOX_FILES: ReadonlyArray<readonly [path: string, seconds: number]> = [
  ["test/e2e/hostile-tenant.test.ts", 118],
  ["test/e2e/forge-loop.test.ts", 35],
  ["test/e2e/tasks.test.ts", 79],
  ["test/e2e/task-turns.test.ts", 54],
  ["test/e2e/claude-code.test.ts", 37],
  ["test/e2e/task-budget.test.ts", 13],
  ["test/e2e/hostile-push.test.ts", 16],
  ["test/e2e/sandbox-lifecycle.test.ts", 65],
  ["test/e2e/scripts.test.ts", 36],
  ["test/e2e/restart.test.ts", 30],
  ["test/e2e/sandbox-views.test.ts", 40],
  ["test/e2e/coding.test.ts", 26],
  ["test/e2e/sandbox-browser.test.ts", 11],
  ["test/e2e/contract.test.ts", 14],
  ["test/browser/sandbox-tabs.test.ts", 29],
  ["test/browser/sandbox-home.test.ts", 5],
  ["test/browser/run-changes.test.ts", 6],
  ["test/browser/console.test.ts", 11],
  ["test/browser/tasks.test.ts", 14],
  ["test/browser/run-chain.test.ts", 11],
  ["test/e2e/forge.test.ts", 3],
  ["test/e2e/warm-pool.test.ts", 22],
];

/**
 * The seconds of the slowest other files, and of a typical file of each project, with the
 * box files running beside them (a workerd file takes 7 s, not the 2 s it takes alone).
 */
export const OTHER_SECONDS: Readonly<Record<string, number>> = {
  "test/e2e/concurrency.test.ts": 75,
  // Stacks of their own with the sandboxes off (npm start, own-stack.ts): beside the box
  // files, not in their turn.
  "test/e2e/postgres-outage.test.ts": 60,
  "test/e2e/power-loss.test.ts": 50,
  "test/e2e/postgres-freeze.test.ts": 30,
  "test/e2e/restart-delivery.test.ts": 45,
  "durable-objects/agent/run/lifecycle.concurrency.test.ts": 44,
  "durable-objects/agent/run/lifecycle.test.ts": 30,
  "workers/api/task-attempts.test.ts": 30,
  "durable-objects/forge/checks.test.ts": 29,
  "durable-objects/agent/triggers/group.test.ts": 22,
  "workers/api/tasks.test.ts": 21,
  "durable-objects/agent/run/chain.test.ts": 20,
  "workers/api/mcp-connections.test.ts": 20,
  "durable-objects/forge/checks-ci.test.ts": 19,
  "scripts/secrets-rotate.test.ts": 44,
  "containers/guest/guest.test.ts": 34,
  "test/unit/bootstrap.test.ts": 22,
  "scripts/deploy/rehearse.test.ts": 17,
  "scripts/forge/ci.test.ts": 12,
  "test/browser/run.test.ts": 50,
  e2e: 8,
  browser: 15,
  images: 11,
  workers: 8,
  "workers-eviction": 4,
  unit: 1,
};

/** The project's root: the lists above name files from it. */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The file's path from the project's root, as the lists above name it. */
export function relativePath(moduleId: string): string {
  return relative(ROOT, moduleId).split(sep).join("/");
}

export function isBoxFile(moduleId: string): boolean {
  const path = relativePath(moduleId);
  return BOX_FILES.some(([file]) => file === path);
}
