import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder whose presence says a box file holds its turn (one per vitest run). */
    boxTurn: string;
  }
}

/**
 * The box files' turn (./box-files.ts): one file at a time runs the container engine's boxes.
 * The turn is a folder holding its holder's pid: mkdir is atomic across the workers'
 * processes, and a holder that died (a crash, a kill) leaves it to be taken over.
 */
export const WAIT_LIMIT_MS = 30 * 60_000;
let holding = false;
let ownStack = false;

function holder(turn: string): number | null {
  try {
    return Number(readFileSync(join(turn, "pid"), "utf8"));
  } catch {
    return null; // just made, its pid not written yet
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits for the turn and takes it. A turn this process already holds is kept (a file's stack
 * and its setup file may both ask), and given back by whichever gives it back first.
 */
export async function takeTurn(): Promise<void> {
  const turn = inject("boxTurn");
  for (;;) {
    if (holding) return;
    if (holder(turn) === process.pid) {
      holding = true;
      return;
    }
    try {
      mkdirSync(turn);
      writeFileSync(join(turn, "pid"), String(process.pid));
      holding = true;
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const pid = holder(turn);
    if (pid !== null && !alive(pid)) rmSync(turn, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Gives the turn back, if this process holds it. */
export function giveTurnBack(): void {
  if (holding) rmSync(inject("boxTurn"), { recursive: true, force: true });
  holding = false;
}

/**
 * Said by a file's own stack as the file is loaded: the stack starts before the turn and takes
 * it once up (its start then overlaps the file before it), and gives it back once stopped.
 */
export function stackTakesTurn(): void {
  ownStack = true;
}

/** Whether the file's own stack takes the turn itself. */
export function turnTakenByStack(): boolean {
  return ownStack;
}
