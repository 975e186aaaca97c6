import { neon, neonConfig } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-http";
import { type Connection, type Database, type DatabaseConfig, DatabaseUnavailable, openDatabase } from "./client";
import * as schema from "./schema";

export interface EdgeDatabaseConfig extends DatabaseConfig {
  /**
   * How the Worker's own queries reach Postgres: `http` (default) sends each statement as one
   * HTTPS request to Neon's `/sql` endpoint; `pool` opens a WebSocket pool per request, as
   * before decision 0023 (kept to compare, and as a switch back without a deploy of code).
   */
  DATABASE_QUERY_PATH?: string;
}

export interface HttpDatabaseOptions {
  /** Give up on a statement after this long (ms): the call throws DatabaseUnavailable. */
  deadlineMs?: number;
}

/** A statement that has waited this long for Neon is not coming back within a request's patience. */
const DEFAULT_DEADLINE_MS = 10_000;

/**
 * The Worker's database for one request, by the path decision 0023 chose: Neon's HTTP query
 * path unless DATABASE_QUERY_PATH says `pool`.
 *
 * @example
 *   const { db, close } = openEdgeDatabase(env);
 *   try { await db.select().from(agents); } finally { ctx.waitUntil(close()); }
 */
export function openEdgeDatabase(config: EdgeDatabaseConfig, options: HttpDatabaseOptions = {}): Connection {
  return config.DATABASE_QUERY_PATH === "pool" ? openDatabase(config, options) : openHttpDatabase(config, options);
}

/**
 * A `Database` whose statements go over Neon's HTTP query path: one HTTPS request each, no
 * WebSocket and no Postgres startup, so a request that reads once pays one round trip.
 * Interactive transactions cannot go over HTTP; `transaction` opens a WebSocket pool the
 * first time a request needs one and `close` ends it. Locally NEON_WS_PROXY's `/sql` stands
 * in for Neon's endpoint (scripts/stack/sql-stand-in.ts).
 *
 * @example
 *   const { db, close } = openHttpDatabase(env, { deadlineMs: 5_000 });
 *   await db.select().from(agents).where(eq(agents.id, id)); // one POST /sql
 *   await db.transaction(async (tx) => { ... });             // a pool, opened now
 */
export function openHttpDatabase(config: DatabaseConfig, options: HttpDatabaseOptions = {}): Connection {
  if (!config.DATABASE_URL) throw new DatabaseUnavailable("DATABASE_URL is not configured");
  if (config.NEON_WS_PROXY) useLocalSqlEndpoint(config.NEON_WS_PROXY);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const query = neon(config.DATABASE_URL, {
    // The driver spreads fetchOptions into each request's init, which reads this getter then:
    // every statement gets its own deadline, counted from when it leaves.
    fetchOptions: {
      get signal() {
        return AbortSignal.timeout(deadlineMs);
      },
    },
  });
  const client = Object.assign((strings: TemplateStringsArray, ...values: unknown[]) => query(strings, ...values), {
    query: (text: string, params?: unknown[], opts?: Parameters<typeof query.query>[2]) => unavailableOnFailure(query.query(text, params, opts)),
    transaction: ((queries, opts) => unavailableOnFailure(query.transaction(queries, opts))) as typeof query.transaction,
  });
  const db = drizzle({ client: client as unknown as typeof query, schema });
  let pool: Connection | undefined;
  const interactive: Database["transaction"] = (transaction, config_) => {
    pool ??= openDatabase(config, { deadlineMs });
    return pool.db.transaction(transaction, config_);
  };
  Object.defineProperty(db, "transaction", { value: interactive });
  return {
    // Routes see the same `Database`: selects, inserts, updates, relational queries and
    // `execute` (`.rows` of objects, timestamps as text) answer alike on both paths.
    db: db as unknown as Database,
    close: async () => {
      await pool?.close();
    },
  };
}

/**
 * Turns a statement that got no answer (Neon unreachable, or past its deadline) into
 * DatabaseUnavailable; a statement Postgres refused keeps its error (and its SQLSTATE).
 */
async function unavailableOnFailure<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    if (noAnswer(error)) throw new DatabaseUnavailable(`The database did not answer: ${(error as Error).message}`, { cause: error });
    throw error;
  }
}

/**
 * The driver wraps a failed fetch (refused, reset, aborted by the deadline) with `sourceError`;
 * an endpoint that could not reach Postgres answers 5xx, which the driver reports by status.
 */
function noAnswer(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  if ((error as { sourceError?: unknown }).sourceError !== undefined) return true;
  const name = (error as { name?: unknown }).name;
  if (name === "TimeoutError" || name === "AbortError") return true;
  return /^Server error \(HTTP status 5\d\d\)/.test(String((error as { message?: unknown }).message));
}

/**
 * Points the driver's HTTP queries at the local stand-in for Neon's `/sql`, served beside the
 * WebSocket proxy under the same secret path.
 *
 * @example useLocalSqlEndpoint("127.0.0.1:4444/Zm9vYmFy") // POST http://127.0.0.1:4444/Zm9vYmFy/sql
 */
export function useLocalSqlEndpoint(proxy: string): void {
  neonConfig.fetchEndpoint = `http://${proxy}/sql`;
}
