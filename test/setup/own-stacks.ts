/**
 * The test files that start and stop a whole stack of their own (Postgres, wrangler dev, the
 * container engine's boxes), with the seconds each took on 2 cores. They run one at a time, in
 * this order, beside the other files (./own-stack-turn.ts, ./sequencer.ts): each assumes the
 * engine and the machine as the serial suite gave them, and a stack starting or stopping sweeps
 * the engine for its Worker's leftovers.
 */
export const OWN_STACK_FILES: ReadonlyArray<readonly [path: string, seconds: number]> = [
  ["test/e2e/hostile-tenant.test.ts", 150],
  ["test/e2e/tasks.test.ts", 82],
  ["test/e2e/sandbox-lifecycle.test.ts", 75],
  ["test/e2e/scripts.test.ts", 57],
  ["test/e2e/restart.test.ts", 45],
  ["test/e2e/coding.test.ts", 34],
  ["test/e2e/power-loss.test.ts", 31],
  ["test/e2e/postgres-outage.test.ts", 31],
  ["test/e2e/postgres-freeze.test.ts", 19],
];

/** The seconds of the slowest other files, and of a typical file of each project. */
export const OTHER_SECONDS: Readonly<Record<string, number>> = {
  "test/e2e/concurrency.test.ts": 69,
  "test/e2e/sandbox-views.test.ts": 39,
  "test/e2e/contract.test.ts": 17,
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

export function isOwnStackFile(moduleId: string): boolean {
  const path = relativePath(moduleId);
  return OWN_STACK_FILES.some(([own]) => own === path);
}
