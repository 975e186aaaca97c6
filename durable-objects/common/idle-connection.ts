import { type Connection, type Database, type DatabaseConfig, openDatabase } from "../../core/db/client";

/**
 * An object's one database connection, opened on first use and closed after `idleMs`
 * without use: thousands of idle objects must not hold thousands of connections. It is
 * never closed under work that holds it: a read through `use`, or whatever `keepOpen`
 * says is in progress (a generation that keeps its `Database` across many awaits). Event
 * stream replays read through it too, so a thousand subscribers share one pool.
 *
 * @example
 *   const shared = new IdleConnection(env, 5_000, () => generating);
 *   const rows = await shared.use((db) => listGroupMessages(db, guildId, { afterSeq, limit }));
 */
/** The connection as a room that only reads and writes through it sees it (a test may hand in its own). */
export type DatabasePort = Pick<IdleConnection, "use">;

export class IdleConnection {
  private conn: Connection | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Reads in flight: the connection is not closed under them. */
  private users = 0;

  constructor(
    private readonly config: DatabaseConfig,
    private readonly idleMs = 5_000,
    private readonly keepOpen: () => boolean = () => false,
  ) {}

  /** Runs `work` on the shared connection. */
  async use<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const db = this.db();
    this.users++;
    try {
      return await work(db);
    } finally {
      this.users--;
      this.arm();
    }
  }

  /** The connection for work that `keepOpen` covers; each call counts as a use. */
  db(): Database {
    this.conn ??= openDatabase(this.config);
    this.arm();
    return this.conn.db;
  }

  /** What the idle timer does when it comes due: close, unless work still holds the connection. */
  closeIfIdle(): void {
    if (this.users > 0 || this.keepOpen()) {
      this.arm();
      return;
    }
    clearTimeout(this.timer);
    const conn = this.conn;
    this.conn = null;
    void conn?.close();
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.closeIfIdle(), this.idleMs);
  }
}
