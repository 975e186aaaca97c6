/** The paths `npm run map` writes into docs/architecture.md, in the order of their sections. */
import { messagePath } from "./message-path";
import { taskPath } from "./task-path";
import type { Path } from "./types";

export const PATHS: readonly Path[] = [messagePath, taskPath];

/** Where the sections go. */
export const ARCHITECTURE = "docs/architecture.md";
