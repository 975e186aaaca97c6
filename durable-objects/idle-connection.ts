import { openDatabase, type Connection, type Database, type DatabaseConfig } from "../core/db/client";

/**
 * An object's one database connection, opened on first use and closed after `idleMs`
 * without use. Event stream replays read through it, so a thousand subscribers share
 * one pool (a few sockets) instead of opening one each.
 *
 * @example
 *   const shared = new IdleConnection(env);
 *   const rows = await listGroupMessages(shared.db(), guildId, { afterSeq, limit });
 */
export class IdleConnection {
  private conn: Connection | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Reads in flight: the connection is not closed under them. */
  private users = 0;

  constructor(private readonly config: DatabaseConfig, private readonly idleMs = 5_000) {}

  /** Runs `work` on the shared connection. */
  async use<T>(work: (db: Database) => Promise<T>): Promise<T> {
    this.conn ??= openDatabase(this.config);
    this.users++;
    clearTimeout(this.timer);
    try {
      return await work(this.conn.db);
    } finally {
      this.users--;
      this.arm();
    }
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.users > 0) return this.arm();
      const conn = this.conn;
      this.conn = null;
      void conn?.close();
    }, this.idleMs);
  }
}
