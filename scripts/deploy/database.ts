import pg from "pg";
import { withoutAddresses } from "../../core/output/log";
import { migrateDatabase } from "../db/migrate";
import { redactUrl } from "../stack/postgres";

/** How long the deploy waits for the database to answer before refusing. */
const CONNECT_TIMEOUT_MS = 15_000;

/**
 * Applies the pending migrations to the environment's database, after making sure it
 * answers at all: an unreachable database stops the deploy before anything changes.
 */
export async function migrateEnvironmentDatabase(url: string): Promise<void> {
  const target = redactUrl(url);
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await probe.connect();
    await probe.query("select 1");
  } catch (error) {
    throw new Error(`Cannot reach the database at ${target} (${describe(error)}); nothing was deployed.`);
  } finally {
    await probe.end().catch(() => {});
  }
  console.log(`Applying pending migrations to ${target}`);
  await migrateDatabase(url);
}

/** A driver error without any connection string in it (they carry the password). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return withoutAddresses(message) || "no answer";
}
