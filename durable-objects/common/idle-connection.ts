import { type Connection, type Database, type DatabaseConfig, OBJECT_DEADLINE_MS, openDatabase } from "../../core/db/client";

/**
 * An object's one database connection, opened on first use and closed `idleMs` to twice
 * that after its last use: thousands of idle objects must not hold thousands of connections. It is
 * never closed under work that holds it: a read through `use`, or whatever `keepOpen`
 * says is in progress (a generation that keeps its `Database` across many awaits). Event
 * stream replays read through it too, so a thousand subscribers share one pool.
 *
 * Every call has a deadline (`deadlineMs`). When one fails for want of the database (past
 * its deadline, or the connection failed), the pool is dropped: the next use opens a fresh
 * one. The dropped pool is closed once no work holds a connection, since a generation may
 * still hold its `Database` across awaits.
 *
 * @example
 *   const shared = new IdleConnection(env, 5_000, () => generating);
 *   const rows = await shared.use((db) => listGroupMessages(db, guildId, { afterSeq, limit }));
 */
/** The connection as a room that only reads and writes through it sees it (a test may hand in its own). */
export type DatabasePort = Pick<IdleConnection, "use">;

export class IdleConnection {
  private conn: Connection | null = null;
  /** Pools dropped after a failure, closed with the next idle close. */
  private retired: Connection[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Whether the connection was handed out since the idle timer was armed. */
  private usedSinceArmed = false;
  /** Reads in flight: the connection is not closed under them. */
  private users = 0;

  constructor(
    private readonly config: DatabaseConfig,
    private readonly idleMs = 5_000,
    private readonly keepOpen: () => boolean = () => false,
    private readonly deadlineMs = OBJECT_DEADLINE_MS,
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
    if (!this.conn) {
      const conn: Connection = openDatabase(this.config, { deadlineMs: this.deadlineMs, closedByCaller: true, onUnavailable: () => this.drop(conn) });
      this.conn = conn;
    }
    this.arm();
    return this.conn.db;
  }

  /** What the idle timer does when it comes due: close, unless work still holds the connection. */
  closeIfIdle(): void {
    if (this.users > 0 || this.keepOpen()) {
      this.arm();
      return;
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.usedSinceArmed = false;
    const conns = [...this.retired, ...(this.conn ? [this.conn] : [])];
    this.conn = null;
    this.retired = [];
    for (const conn of conns) void conn.close();
  }

  /** Stops handing out `conn` after a failure; it closes with the next idle close. */
  private drop(conn: Connection): void {
    if (this.conn !== conn) return;
    this.conn = null;
    this.retired.push(conn);
  }

  /**
   * The idle close, between `idleMs` and twice that after the last use. Not re-armed on
   * every use (a clearTimeout and a setTimeout per statement were a few percent of a
   * schedule fire's CPU): a timer that finds the connection used since it was armed waits
   * one more period. (Re-arming for the rest of the period, reckoned from Date.now(), kept
   * re-arming in workerd, whose clock moves only with I/O.)
   */
  private arm(): void {
    if (this.timer === undefined) this.timer = setTimeout(() => this.idleTimerDue(), this.idleMs);
    else this.usedSinceArmed = true;
  }

  private idleTimerDue(): void {
    this.timer = undefined;
    if (!this.usedSinceArmed) {
      this.closeIfIdle();
      return;
    }
    this.usedSinceArmed = false;
    this.timer = setTimeout(() => this.idleTimerDue(), this.idleMs);
  }
}
