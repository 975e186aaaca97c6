import { neonConfig, Pool } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import * as schema from "./schema";

export type Database = NeonDatabase<typeof schema>;

export interface DatabaseConfig {
  DATABASE_URL?: string;
  /** host:port/secret-path of a local WebSocket-to-TCP proxy; unset against Neon. */
  NEON_WS_PROXY?: string;
}

export interface Connection {
  db: Database;
  close(): Promise<void>;
}

/**
 * Opens a pooled connection with the production driver (Neon serverless over
 * WebSocket). Locally the socket goes through our proxy to a plain Postgres, so
 * development and tests exercise the same code path as Neon.
 *
 * @example
 *   const { db, close } = openDatabase(env);
 *   try { await db.select().from(guilds); } finally { ctx.waitUntil(close()); }
 */
export function openDatabase(config: DatabaseConfig): Connection {
  if (!config.DATABASE_URL) throw new DatabaseUnavailable("DATABASE_URL is not configured");
  if (config.NEON_WS_PROXY) useLocalProxy(config.NEON_WS_PROXY);
  const pool = new Pool({ connectionString: config.DATABASE_URL, max: 4 });
  // The driver may report "Network connection lost" after end(); nothing awaits it then.
  pool.on("error", () => {});
  let ended = false;
  return {
    db: drizzle({ client: pool, schema }),
    close: async () => {
      if (ended) return;
      ended = true;
      await pool.end().catch(() => {});
    },
  };
}

/**
 * Points the Neon driver at a local WebSocket-to-TCP proxy (plain Postgres, no TLS). The
 * proxy's address carries its secret path, which the driver's `/v1` follows.
 *
 * @example useLocalProxy("127.0.0.1:4444/Zm9vYmFy") // ws://127.0.0.1:4444/Zm9vYmFy/v1?address=…
 */
export function useLocalProxy(proxy: string): void {
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

/** Raised when the database is not configured or cannot be reached. */
export class DatabaseUnavailable extends Error {
  override name = "DatabaseUnavailable";
}
