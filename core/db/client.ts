import { Client, neonConfig, Pool, type PoolClient, type WebSocketConstructor } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { concatBytes } from "../bytes/concat";
import { OpeningGate } from "./opening-gate";
import { isConnectionFailure } from "./outage";
import * as schema from "./schema";
import { scramClientFinal } from "./scram";

export type Database = NeonDatabase<typeof schema>;

/** Any drizzle Postgres database: Neon in the Worker, node-postgres in scripts. */
export type AnyDatabase = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

export interface DatabaseConfig {
  DATABASE_URL?: string;
  /** host:port/secret-path of a local WebSocket-to-TCP proxy; unset against Neon. */
  NEON_WS_PROXY?: string;
}

export interface Connection {
  db: Database;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * Longest wait, in ms, for one call (a free connection, then the statement's answer).
   * Past it the connection is ended (a statement without an answer leaves it in an unknown
   * state) and the call throws DatabaseUnavailable. Unset: no deadline. A call queued behind
   * the isolate's other openings (OPENINGS_AT_ONCE) waits while they succeed, and its deadline
   * starts when its turn comes; with none succeeding, it fails after `deadlineMs` as well.
   */
  deadlineMs?: number;
  /** Told when a connection was given up (deadline or connection failure); the pool stays usable. */
  onUnavailable?: (error: DatabaseUnavailable) => void;
  /**
   * The caller closes the pool when it has been idle (an object's IdleConnection): the pool's
   * own idle timer, set again on every release, is then left off.
   */
  closedByCaller?: boolean;
}

/**
 * The Worker's deadline: an API request answers 503 within seconds instead of hanging. Above
 * the slowest healthy call (a Neon compute waking from suspend takes up to a few seconds).
 */
export const REQUEST_DEADLINE_MS = 5_000;

/**
 * The objects' deadline: longer than a short stall (a Postgres restart, a failover, a 10 s
 * freeze), so a generation's reads and commits wait it out as they did without a deadline;
 * its commits that do time out are retried (outage.ts `riding`) on a fresh connection.
 */
export const OBJECT_DEADLINE_MS = 15_000;

/**
 * Opens a pooled connection with the production driver (Neon serverless over
 * WebSocket). Locally the socket goes through our proxy to a plain Postgres, so
 * development and tests exercise the same code path as Neon.
 *
 * @example
 *   const { db, close } = openDatabase(env);
 *   try { await db.select().from(guilds); } finally { ctx.waitUntil(close()); }
 */
export function openDatabase(config: DatabaseConfig, options: DatabaseOptions = {}): Connection {
  if (!config.DATABASE_URL) throw new DatabaseUnavailable("DATABASE_URL is not configured");
  sendWritesPerTurn();
  if (config.NEON_WS_PROXY) useLocalProxy(config.NEON_WS_PROXY);
  const { deadlineMs } = options;
  const pool = new Pool({
    connectionString: config.DATABASE_URL,
    max: POOL_MAX,
    ...(deadlineMs ? { connectionTimeoutMillis: deadlineMs } : {}),
    ...(options.closedByCaller ? { idleTimeoutMillis: 0 } : {}),
  });
  pool.Client = ScramClient;
  if (deadlineMs) withDeadlines(pool, deadlineMs, options.onUnavailable);
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
 * The driver's client with SCRAM's key derivation done once per isolate (scram.ts says why).
 * The Neon pool sets its own client class in its constructor, so the pool's is replaced after.
 */
class ScramClient extends Client {
  override async _handleAuthSASLContinue(message: { data: unknown }): Promise<void> {
    const session = this.saslSession as { message: string; clientNonce: string; serverSignature?: string; response?: string };
    try {
      if (session?.message !== "SASLInitialResponse" || typeof this.password !== "string" || typeof message.data !== "string")
        throw new Error("SASL: protocol error");
      const { response, serverSignature } = await scramClientFinal(session.clientNonce, this.password, message.data);
      Object.assign(session, { message: "SASLResponse", response, serverSignature });
      this.connection.sendSCRAMClientFinalMessage(response);
    } catch (error) {
      // The connection's error ends the opening, as the driver's own failures do.
      this.connection.emit("error", error);
    }
  }
}

/** Connections of one pool (one object's, or one request's). */
const POOL_MAX = 4;

/**
 * Connections the isolate opens at once, over all its pools (opening-gate.ts says why).
 * Thirty-two: with SCRAM's key derived in one native call (decision 0036) an opening costs
 * the thread little, and a burst of cold objects waits on round trips, not on the thread.
 */
export const OPENINGS_AT_ONCE = 32;
const openings = new OpeningGate(OPENINGS_AT_ONCE);

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

/**
 * Raised when the database is not configured, cannot be reached, or did not answer within
 * the deadline. Its message starts with `database.unavailable:` so that the Worker still
 * recognises it after an RPC or a fetch from an object, which keeps only the message.
 */
export class DatabaseUnavailable extends Error {
  override name = "DatabaseUnavailable";
  constructor(reason: string, options?: ErrorOptions) {
    super(`${UNAVAILABLE_PREFIX} ${reason}`, options);
  }
}

const UNAVAILABLE_PREFIX = "database.unavailable:";

/**
 * Whether an error means the database is unavailable: a DatabaseUnavailable anywhere in its
 * cause chain (drizzle wraps it), its message after an RPC, or a connection failure.
 *
 * @example isDatabaseUnavailable(new DrizzleQueryError(sql, [], new DatabaseUnavailable("no answer"))) // true
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DatabaseUnavailable) return true;
    if (e instanceof Error && e.message.startsWith(UNAVAILABLE_PREFIX)) return true;
  }
  return isConnectionFailure(error);
}

/** Seconds a caller should wait before asking again after a 503 database.unavailable. */
export const RETRY_AFTER_S = 5;

/**
 * Gives every call of `pool` a deadline. `pool.query` checks a connection out itself (as the
 * pool does) so that a call past its deadline ends that connection; a connection handed out by
 * `connect` (drizzle's transactions) gets the same guard on each of its statements, and once
 * ended answers DatabaseUnavailable at once (the transaction's rollback, then its release).
 */
function withDeadlines(pool: Pool, deadlineMs: number, onUnavailable?: (error: DatabaseUnavailable) => void): void {
  const connect = pool.connect.bind(pool) as () => Promise<PoolClient>;
  /** Each guarded connection's statement runner, with the time its call has left. */
  const runners = new WeakMap<PoolClient, (ms: number, args: unknown[]) => Promise<unknown>>();
  const giveUp = (cause: unknown, what: string): DatabaseUnavailable => {
    const error = cause instanceof DatabaseUnavailable ? cause : new DatabaseUnavailable(what, { cause });
    onUnavailable?.(error);
    return error;
  };
  const guard = (client: PoolClient) => {
    let run = runners.get(client);
    if (run) return run;
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    let ended = false;
    run = async (ms, args) => {
      if (ended) throw new DatabaseUnavailable("the connection was ended after a failed call");
      try {
        return await within(query(...args), ms, "no answer");
      } catch (error) {
        if (!(error instanceof DatabaseUnavailable) && !isConnectionFailure(error)) throw error;
        ended = true;
        // A statement without an answer leaves the connection in an unknown state; the pool
        // removes an ended client when it comes back.
        void (client as unknown as { end(): Promise<void> }).end().catch(() => {});
        throw giveUp(error, "the connection failed");
      }
    };
    runners.set(client, run);
    (client as { query: unknown }).query = (...args: unknown[]) => run(deadlineMs, args);
    return run;
  };
  const checkout = async (ms: number) => {
    // Only a checkout that opens a connection waits at the gate; an idle one is handed out at
    // once, and a full pool queues for a release. The gate is waited out while openings
    // succeed; a wait that fails fails this call alone: the pool is sound, so it is kept.
    const opens = pool.idleCount === 0 && pool.totalCount < POOL_MAX;
    const leave = opens ? await openings.enter(ms, () => new DatabaseUnavailable(`no connection within ${ms} ms (waiting to open one)`)) : undefined;
    // The call's deadline counts from here: the gate's queue is not the database's slowness.
    const started = Date.now();
    const idle = pool.idleCount > 0;
    const pending = connect();
    if (leave)
      pending.then(
        () => leave(true),
        () => leave(false),
      );
    try {
      // An idle connection is handed out at once: only an opening or a wait in the queue
      // needs a timer (one per query less, a part of each statement's CPU).
      const client = idle ? await pending : await within(pending, ms, "no connection");
      return { client, run: guard(client), started };
    } catch (error) {
      // A connection that comes after its caller gave up goes back, ended.
      pending.then(
        (late) => late.release(true),
        () => {},
      );
      if (error instanceof DatabaseUnavailable || isConnectionFailure(error)) throw giveUp(error, "the connection failed");
      throw error;
    }
  };
  (pool as { connect: unknown }).connect = async () => (await checkout(deadlineMs)).client;
  // One deadline for the whole call: waiting for a connection, then the statement.
  (pool as { query: unknown }).query = async (...args: unknown[]) => {
    const { client, run, started } = await checkout(deadlineMs);
    try {
      return await run(Math.max(1, deadlineMs - (Date.now() - started)), args);
    } finally {
      client.release();
    }
  };
}

/** `work`, or DatabaseUnavailable ("no answer within 5000 ms") once `ms` have passed without it. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailable(`${what} within ${ms} ms`)), ms);
  });
  // The abandoned call still settles later (an error once its connection is ended): nobody awaits it.
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => timer !== undefined && clearTimeout(timer));
}
