import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { isBoxFile } from "./box-files.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder whose presence says a box file holds its turn (one per vitest run). */
    boxTurn: string;
  }
}

/**
 * A setup file: a test file that runs boxes or a stack of its own (./box-files.ts) waits for
 * its turn before its own hooks run and gives it back after its boxes and stack are gone (a
 * setup file's afterAll runs last), so those files run one at a time while the others run
 * beside them. The turn is a folder: mkdir is atomic across the workers' processes.
 */
const WAIT_LIMIT_MS = 30 * 60_000;
let holding = false;

function holderAlive(turn: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(turn, "pid"), "utf8"));
  } catch {
    return true; // just made, its pid not written yet
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// vitest hands the suite second; the first argument must be a destructuring pattern.
// biome-ignore lint/correctness/noEmptyPattern: no fixture is used
beforeAll(async ({}, suite) => {
  if (!isBoxFile(suite.file.filepath)) return;
  const turn = inject("boxTurn");
  for (;;) {
    try {
      mkdirSync(turn);
      writeFileSync(join(turn, "pid"), String(process.pid));
      holding = true;
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    // A worker that died holding the turn (a crash, a kill) leaves it behind.
    if (!holderAlive(turn)) rmSync(turn, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, WAIT_LIMIT_MS);

afterAll(() => {
  if (holding) rmSync(inject("boxTurn"), { recursive: true, force: true });
  holding = false;
});
