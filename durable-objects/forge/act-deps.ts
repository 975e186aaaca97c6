/**
 * What acting on a webhook delivery needs (act.ts and the modules it dispatches to): the
 * bindings, the database and a clock. A file of its own so those modules name it without
 * importing the dispatcher that imports them.
 */
import type { Env } from "../../bindings/env";
import type { Database } from "../../core/db/client";

export interface ActDeps {
  env: Env;
  db: Database;
  now(): number;
}
