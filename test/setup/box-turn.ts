import { afterAll, beforeAll } from "vitest";
import { isBoxFile } from "./box-files.js";
import { giveTurnBack, takeTurn, turnTakenByStack, WAIT_LIMIT_MS } from "./turn.js";

/**
 * A setup file: a test file that runs boxes (./box-files.ts) waits for its turn (./turn.ts)
 * before its own hooks run and gives it back after its boxes are gone (a setup file's afterAll
 * runs last), so those files run one at a time while the others run beside them. A file with
 * a stack of its own has the stack take the turn once it is up (test/e2e/container-stack.ts).
 */
// vitest hands the suite second; the first argument must be a destructuring pattern.
// biome-ignore lint/correctness/noEmptyPattern: no fixture is used
beforeAll(async ({}, suite) => {
  if (isBoxFile(suite.file.filepath) && !turnTakenByStack()) await takeTurn();
}, WAIT_LIMIT_MS);

afterAll(() => giveTurnBack());
