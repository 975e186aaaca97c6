import { neonConfig, Pool, type WebSocketConstructor } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import { concatBytes } from "../bytes/concat";
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
  sendWritesPerTurn();
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

/**
 * The driver's writes go out at the end of the turn that made them, as one WebSocket message.
 * Its own coalescing (`coalesceWrites`) flushes on `setTimeout(0)`, which workerd runs a
 * millisecond or more later, so every query waited that long before it left. A query's
 * messages (Parse, Bind, Describe, Execute, Sync) are written in one synchronous turn, so a
 * microtask flush sends the same single message, at once. Set once per isolate, on the global
 * WebSocket the driver would use anyway.
 */
function sendWritesPerTurn(): void {
  if (neonConfig.webSocketConstructor) return;
  neonConfig.webSocketConstructor = coalescingWebSocket(WebSocket as unknown as WebSocketConstructor);
  neonConfig.coalesceWrites = false;
}

/**
 * A WebSocket class whose binary sends of one turn leave as one message (see
 * sendWritesPerTurn); a close first sends what is still pending.
 *
 * @example
 *   const Socket = coalescingWebSocket(WebSocket);
 *   const ws = new Socket(url); ws.send(a); ws.send(b); // one message a+b, after this turn
 */
export function coalescingWebSocket(Base: WebSocketConstructor): WebSocketConstructor {
  return class extends Base {
    #pending: Uint8Array[] = [];

    override send(data: unknown): void {
      if (!ArrayBuffer.isView(data)) {
        this.#flush();
        super.send(data);
        return;
      }
      if (this.#pending.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) === 1) queueMicrotask(() => this.#flush());
    }

    override close(code?: number, reason?: string): void {
      try {
        this.#flush();
      } catch {
        // A socket already closing refuses the last writes (a Terminate): the close stands.
      }
      super.close(code, reason);
    }

    #flush(): void {
      const chunks = this.#pending;
      if (chunks.length === 0) return;
      this.#pending = [];
      super.send(chunks.length === 1 ? chunks[0]! : concatBytes(chunks));
    }
  };
}

/** Raised when the database is not configured or cannot be reached. */
export class DatabaseUnavailable extends Error {
  override name = "DatabaseUnavailable";
}
