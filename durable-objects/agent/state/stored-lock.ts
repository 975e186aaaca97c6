/**
 * The stored half of the agent's generation lock (GEN-002: one generation at a time per
 * agent, across all of its runs): at most one row of the object's SQLite storage. The
 * generation lock (generation-lock.ts) pairs it with the generation this instance runs.
 *
 * It lives in storage rather than in memory because it must outlive the object: after an
 * eviction or a crash, a lock left by an earlier instance of the object (or whose lease
 * has run out) is how the object learns that a generation died mid-way and needs its
 * interruption results. For the same reason such a lock is NOT free for the taking:
 * `acquire` keeps reporting busy until recovery has written those results and released it.
 *
 * Each row records the instance that took it. A lock this instance holds is never an
 * orphan while its lease runs, even when its loop is not in memory yet: the lock is taken
 * before the database round trips that open the generation, and other requests get in
 * between.
 *
 * All methods are synchronous: SQLite calls in a Durable Object are, and the object's
 * single thread makes check-then-write atomic without a transaction.
 */

/** The held lock, times in epoch milliseconds. */
export interface GenerationLease {
  runId: string;
  generation: number;
  leaseUntil: number;
  startedAt: number;
  /** The object instance that took the lock. */
  instance: string;
}

export type AcquireResult = { ok: true; lease: GenerationLease } | { ok: false; busyRunId: string; leaseExpired: boolean };

type Row = { run_id: string; generation: number; lease_until: number; started_at: number; instance: string };
const COLUMNS = "run_id, generation, lease_until, started_at, instance";

export class StoredLock {
  /**
   * The row as stored (null: none), read once: this object is its only writer, and the
   * lock was read several times a generation, each a statement on the object's one thread.
   */
  private row: Row | null | undefined;

  /**
   * @param instance this object instance's id: a fresh one per constructor call, so a
   *   lock written before an eviction or a crash is told apart from one taken now.
   */
  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number,
    readonly instance: string = crypto.randomUUID(),
  ) {}

  /** Creates the table; idempotent. The CHECK keeps it to one row. */
  static migrate(sql: SqlStorage): void {
    sql.exec(`CREATE TABLE IF NOT EXISTS generation_lock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      run_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      lease_until INTEGER NOT NULL,
      started_at INTEGER NOT NULL,
      instance TEXT NOT NULL DEFAULT ''
    )`);
    // Objects created before the instance column: a lock they hold reads as an earlier instance's.
    const columns = sql
      .exec<{ name: string }>(`PRAGMA table_info(generation_lock)`)
      .toArray()
      .map((c) => c.name);
    if (!columns.includes("instance")) sql.exec(`ALTER TABLE generation_lock ADD COLUMN instance TEXT NOT NULL DEFAULT ''`);
  }

  /** Takes the lock for `runId`'s generation, or names the run that holds it. */
  acquire(runId: string, generation: number, leaseMs: number): AcquireResult {
    checkRunId(runId);
    checkGeneration(generation);
    checkLease(leaseMs);
    const held = this.current();
    if (held) return { ok: false, busyRunId: held.runId, leaseExpired: held.leaseUntil <= this.now() };
    const now = this.now();
    const row = this.sql
      .exec<Row>(
        `INSERT INTO generation_lock (id, run_id, generation, lease_until, started_at, instance)
         VALUES (1, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
        runId,
        generation,
        now + leaseMs,
        now,
        this.instance,
      )
      .one();
    this.row = row;
    return { ok: true, lease: toLease(row) };
  }

  /**
   * Extends the holder's lease to now + leaseMs; null if `runId` does not hold the lock.
   * A holder may renew a lease that has just run out: only the live loop renews, and the
   * lock was not handed to anyone else in between (see `acquire`).
   */
  renew(runId: string, leaseMs: number): GenerationLease | null {
    checkLease(leaseMs);
    const row = this.sql
      .exec<Row>(
        `UPDATE generation_lock SET lease_until = ? WHERE run_id = ? AND instance = ?
         RETURNING ${COLUMNS}`,
        this.now() + leaseMs,
        runId,
        this.instance,
      )
      .toArray()[0];
    if (row) this.row = row;
    return row ? toLease(row) : null;
  }

  /**
   * Passes the lock from a run to its continuation without releasing it (CHAIN-010), so
   * no other generation or delivery can slip in between. False if `fromRunId` does not
   * hold it.
   */
  handOver(fromRunId: string, toRunId: string, generation: number, leaseMs: number): boolean {
    checkRunId(toRunId);
    checkGeneration(generation);
    checkLease(leaseMs);
    const now = this.now();
    const row = this.sql
      .exec<Row>(
        `UPDATE generation_lock SET run_id = ?, generation = ?, lease_until = ?, started_at = ?, instance = ?
         WHERE run_id = ? RETURNING ${COLUMNS}`,
        toRunId,
        generation,
        now + leaseMs,
        now,
        this.instance,
        fromRunId,
      )
      .toArray()[0];
    if (row) this.row = row;
    return row !== undefined;
  }

  /** Frees the lock if `runId` holds it; true when it did. Any other run id is a no-op. */
  release(runId: string): boolean {
    const released = this.sql.exec(`DELETE FROM generation_lock WHERE run_id = ?`, runId).rowsWritten > 0;
    if (released) this.row = null;
    return released;
  }

  /** The held lock, or null when the agent is not generating. */
  current(): GenerationLease | null {
    // Not `??=`: null (no lock) is known, only undefined is unread.
    if (this.row === undefined) this.row = this.sql.exec<Row>(`SELECT ${COLUMNS} FROM generation_lock WHERE id = 1`).toArray()[0] ?? null;
    return this.row ? toLease(this.row) : null;
  }

  /** The object's storage was deleted whole (`deleteAll`): read the row afresh. */
  storageCleared(): void {
    this.row = undefined;
  }

  /** True when a lock is held and its lease ran out at `now`: the generation is presumed dead. */
  expired(now: number = this.now()): boolean {
    const held = this.current();
    return held !== null && held.leaseUntil <= now;
  }

  /**
   * The held lock when its generation is presumed dead: an earlier instance of the object
   * took it (evicted, crashed, redeployed), or its lease ran out. Null otherwise, and in
   * particular for a lock this instance took whose loop has not started yet.
   */
  orphaned(now: number = this.now()): GenerationLease | null {
    const held = this.current();
    if (!held) return null;
    return held.instance !== this.instance || held.leaseUntil <= now ? held : null;
  }
}

function toLease(row: Row): GenerationLease {
  return {
    runId: row.run_id,
    generation: row.generation,
    leaseUntil: row.lease_until,
    startedAt: row.started_at,
    instance: row.instance,
  };
}

function checkRunId(runId: string): void {
  if (typeof runId !== "string" || runId.length === 0) throw new RangeError("run id must be a non-empty string");
}

function checkGeneration(generation: number): void {
  if (!Number.isSafeInteger(generation) || generation < 1) {
    throw new RangeError("generation must be an integer >= 1 (RUN-011)");
  }
}

function checkLease(leaseMs: number): void {
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new RangeError("lease must be a positive number of ms");
}
