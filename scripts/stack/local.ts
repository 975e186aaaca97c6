import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./wrangler";

/**
 * The database a command-line tool works on: DATABASE_URL when set, otherwise the
 * one the running local stack recorded in `.local/stack.json`.
 */
export function localDatabaseUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const file = join(stateDir(), "stack.json");
  if (existsSync(file)) {
    const stack = JSON.parse(readFileSync(file, "utf8")) as { database_url?: string };
    if (stack.database_url) return stack.database_url;
  }
  console.error("No database: start the local stack (npm start) or set DATABASE_URL.");
  process.exit(1);
}

/** The local stack's state folder: STACK_STATE_DIR, or `.local` in the repository. */
export function stateDir(): string {
  return process.env.STACK_STATE_DIR || join(ROOT, ".local");
}
