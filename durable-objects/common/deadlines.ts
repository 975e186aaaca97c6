/**
 * Deadline multiplexer: many named deadlines on a Durable Object's ONE alarm.
 *
 * An agent needs several timers at once (the next schedule wake-up, the sandbox idle
 * deadline, the heartbeat of a running generation), but a Durable Object has a single
 * alarm. Each deadline is a row in the object's SQLite storage; after every change the
 * alarm is armed at the earliest `due_at` (or deleted when nothing is left), once per
 * firing for the changes made during one, and `alarm()` calls `fire()` to run whatever is
 * due.
 *
 * Alarms are delivered at least once, so firing is idempotent by construction: an entry
 * is deleted after its handler succeeded, and only if its `version` is still the one that
 * fired, so a repeated `alarm()` finds nothing left to run, while a handler that
 * re-set its own entry (a periodic timer) keeps the new one. The handler and the deletion
 * are not one transaction: a crash between them runs the handler again on the retried
 * alarm, so handlers that do outside I/O must tolerate that (check before acting). Such a
 * handler may settle its entry before that I/O: it counts as fired then, and waits at a
 * guard time in case the handler never gets to set it again.
 *
 * A deadline's kind is its name up to the first ':' (`schedule:<id>` → `schedule`,
 * `sandbox.idle` → `sandbox.idle`); the handler registered for that kind runs it.
 * The clock is injected so tests can drive time without waiting.
 */

/** One stored deadline, as handlers and diagnostics see it. */
export interface Deadline {
  name: string;
  kind: string;
  /** Epoch milliseconds. */
  dueAt: number;
  /** The JSON value given to `set`, or undefined. */
  payload: unknown;
  /** Bumped by every `set`, unique for the object's lifetime (never reused). */
  version: number;
  /** Failed handler runs since the last `set`. */
  attempts: number;
}

/**
 * Runs one due entry. Throwing keeps the entry and retries it later with backoff.
 * `settle(guardAt)` lets a handler that goes on to outside I/O count as fired at once (see
 * `DeadlineMultiplexer.settle`).
 */
export type DeadlineHandler = (entry: Deadline, now: number, settle: (guardAt: number) => Promise<void>) => void | Promise<void>;

export type DeadlineHandlers = Readonly<Record<string, DeadlineHandler>>; // by kind

/** What one `fire()` did, by entry name, in firing order. */
export interface FireReport {
  fired: string[];
  failed: string[];
  dropped: string[];
}

export interface DeadlineOptions {
  /**
   * Called right after a successful firing, in the same storage transaction as the
   * entry's deletion, so a diagnostic record of the firing cannot get lost separately.
   */
  onFired?: (entry: Deadline, firedAt: number) => void;
}

type Row = {
  name: string;
  due_at: number;
  payload: string | null;
  version: number;
  attempts: number;
};

/** First retry after 1 s, doubling per failure, never more than 5 minutes apart. */
export const RETRY_BASE_MS = 1_000;
export const RETRY_MAX_MS = 5 * 60_000;

/** Delay before the next try, after the `attempts`-th failure in a row (1, 2, ...). */
export function retryDelay(attempts: number): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 30);
  return Math.min(RETRY_BASE_MS * 2 ** exponent, RETRY_MAX_MS);
}

/** The kind of a deadline name: the part before the first ':', or the whole name. */
export function deadlineKind(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.slice(0, colon);
}

const MAX_NAME_LENGTH = 256;

export class DeadlineMultiplexer {
  /** Serialises `fire()` calls: two overlapping firings could both run one entry. */
  private firing: Promise<unknown> = Promise.resolve();
  private readonly sql: SqlStorage;
  /**
   * The table as stored, read once: this object is its only writer, so reads come from here
   * and each write updates it once storage has taken it. A fire read its entries four or five
   * times, each a statement on the object's one thread.
   */
  private stored: Map<string, Row> | undefined;
  /** Where this object last armed its alarm (null: deleted), so an unchanged one is not armed again. */
  private armedAt: number | null | undefined;
  /**
   * A firing is under way: it arms the alarm when it ends (or when a handler settles), so a
   * change meanwhile (a handler's, or a call's that got in while one awaited) does not arm it
   * on its own. Each arming is a write of the object's storage and of the runtime's alarm
   * table (locally, each a flush to disk on the objects' one thread), and inside alarm() the
   * runtime holds a new time until the handler returns anyway.
   */
  private firingNow = false;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly now: () => number,
    private readonly options: DeadlineOptions = {},
  ) {
    this.sql = storage.sql;
  }

  /** Creates the tables; idempotent. Call inside `blockConcurrencyWhile`. */
  static migrate(sql: SqlStorage): void {
    sql.exec(`CREATE TABLE IF NOT EXISTS deadlines (
      name TEXT PRIMARY KEY,
      due_at INTEGER NOT NULL,
      payload TEXT,
      version INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0
    )`);
    sql.exec(`CREATE INDEX IF NOT EXISTS deadlines_due ON deadlines (due_at, name)`);
    // One counter for the versions: a cleared and re-set entry must not get its old
    // version back, or a handler's "clear then set" would look like "untouched".
    sql.exec(`CREATE TABLE IF NOT EXISTS deadline_version (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      n INTEGER NOT NULL
    )`);
  }

  /** Creates or replaces the named deadline (new version, attempts reset) and re-arms. */
  async set(name: string, dueAtMs: number, payload?: unknown): Promise<Deadline> {
    if (typeof name !== "string" || name.length === 0 || name.length > MAX_NAME_LENGTH) {
      throw new RangeError(`deadline name must be 1..${MAX_NAME_LENGTH} characters`);
    }
    if (!Number.isFinite(dueAtMs)) throw new RangeError("deadline due time must be a finite number");
    const dueAt = Math.floor(dueAtMs);
    const json = payload === undefined ? null : (JSON.stringify(payload) ?? null);
    const rows = this.rows();
    const row = this.storage.transactionSync(() => {
      const { n } = this.sql
        .exec<{ n: number }>(
          `INSERT INTO deadline_version (id, n) VALUES (1, 1)
           ON CONFLICT (id) DO UPDATE SET n = n + 1 RETURNING n`,
        )
        .one();
      return this.sql
        .exec<Row>(
          `INSERT INTO deadlines (name, due_at, payload, version, attempts) VALUES (?, ?, ?, ?, 0)
           ON CONFLICT (name) DO UPDATE SET due_at = excluded.due_at, payload = excluded.payload,
             version = excluded.version, attempts = 0
           RETURNING *`,
          name,
          dueAt,
          json,
          n,
        )
        .one();
    });
    rows.set(name, { ...row });
    if (!this.firingNow) await this.rearm();
    return toDeadline(row);
  }

  /** The object's storage and alarm were deleted whole (`deleteAll`): read the table afresh. */
  storageCleared(): void {
    this.stored = undefined;
    this.armedAt = undefined;
  }

  /** Removes the named deadline; true if it existed. */
  async clear(name: string): Promise<boolean> {
    const rows = this.rows();
    const removed = this.sql.exec(`DELETE FROM deadlines WHERE name = ?`, name).rowsWritten > 0;
    rows.delete(name);
    if (!this.firingNow) await this.rearm();
    return removed;
  }

  get(name: string): Deadline | null {
    const row = this.rows().get(name);
    return row ? toDeadline(row) : null;
  }

  /** Every deadline, earliest first (ties by name): the order `fire()` runs them in. */
  list(): Deadline[] {
    return this.ordered().map(toDeadline);
  }

  /** The stored rows, earliest first (ties by name). */
  private ordered(): Row[] {
    return [...this.rows().values()].sort((a, b) => a.due_at - b.due_at || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private rows(): Map<string, Row> {
    this.stored ??= new Map(
      this.sql
        .exec<Row>(`SELECT * FROM deadlines`)
        .toArray()
        .map((row) => [row.name, { ...row }]),
    );
    return this.stored;
  }

  /**
   * Runs every entry due at `now`, earliest first, then re-arms at the new earliest.
   * Never throws for a handler's failure: one bad entry must not hold back the others,
   * and an `alarm()` that throws would be retried by the runtime, re-running the
   * entries that already succeeded.
   */
  fire(now: number, handlers: DeadlineHandlers): Promise<FireReport> {
    const run = this.firing.then(() => this.fireDue(now, handlers));
    this.firing = run.catch(() => undefined);
    return run;
  }

  /**
   * Arms the alarm at the earliest deadline, or deletes it when there is none, unless this
   * object armed it at that very time already. Inside alarm() only a time armed during that
   * firing counts (the running alarm is consumed when the handler returns, and a time set
   * mid-handler is kept), never what getAlarm() reports mid-handler.
   */
  private async rearm(): Promise<void> {
    let earliest: number | null = null;
    for (const row of this.rows().values()) if (earliest === null || row.due_at < earliest) earliest = row.due_at;
    if (earliest === this.armedAt) return;
    this.armedAt = undefined;
    if (earliest === null) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(earliest);
    this.armedAt = earliest;
  }

  private async fireDue(now: number, handlers: DeadlineHandlers): Promise<FireReport> {
    const report: FireReport = { fired: [], failed: [], dropped: [] };
    // The alarm that called this is consumed when it returns: nothing may count on it,
    // only on a time a settling armed during this very firing (see settle).
    this.armedAt = undefined;
    this.firingNow = true;
    try {
      await this.fireEach(now, handlers, report);
    } finally {
      this.firingNow = false;
    }
    await this.rearm();
    return report;
  }

  /**
   * A handler's entry counts as fired now, before the handler's outside I/O: the firing is
   * logged, the entry waits at `guardAt` (same version, attempts reset) in case nothing sets
   * it again, and the handler's `settle` then arms the alarm at the earliest entry, all in the
   * turn of the handler's own writes, so they reach storage in one commit rather than one before and one after
   * that I/O. Should the handler still throw, the guard is its retry: the usual backoff, the
   * attempts counted on. A schedule's fire settles once its lock is taken. False when the
   * entry was set again meanwhile: then it is the new setting's, and nothing settled.
   */
  private settle(entry: Deadline, guardAt: number): boolean {
    if (!this.firingNow) throw new Error("a deadline settles only while it fires");
    if (this.rows().get(entry.name)?.version !== entry.version) return false;
    const dueAt = Math.floor(guardAt);
    this.storage.transactionSync(() => {
      this.sql.exec(`UPDATE deadlines SET due_at = ?, attempts = 0 WHERE name = ? AND version = ?`, dueAt, entry.name, entry.version);
      this.options.onFired?.(entry, this.now());
    });
    Object.assign(this.rows().get(entry.name)!, { due_at: dueAt, attempts: 0 });
    return true;
  }

  private async fireEach(now: number, handlers: DeadlineHandlers, report: FireReport): Promise<void> {
    const due = this.ordered().filter((row) => row.due_at <= now);
    for (const { name } of due) {
      // Re-read: an earlier handler (or a call that ran while one awaited) may have
      // cleared or moved this entry since the list was taken.
      const entry = this.get(name);
      if (!entry || entry.dueAt > now) continue;
      const handler = Object.hasOwn(handlers, entry.kind) ? handlers[entry.kind] : undefined;
      if (!handler) {
        this.deleteIfUnchanged(entry);
        this.forgetIfUnchanged(entry);
        logLine("deadline.unknown_kind", { name, kind: entry.kind });
        report.dropped.push(name);
        continue;
      }
      let settled = false;
      try {
        await handler(entry, now, async (guardAt) => {
          if (settled) return;
          settled = this.settle(entry, guardAt);
          if (settled) await this.rearm();
        });
      } catch (error) {
        this.scheduleRetry(entry, error);
        report.failed.push(name);
        continue;
      }
      report.fired.push(name);
      // Settled: logged already, and the guard stays until something sets the entry again.
      if (settled) continue;
      this.storage.transactionSync(() => {
        this.deleteIfUnchanged(entry);
        this.options.onFired?.(entry, this.now());
      });
      this.forgetIfUnchanged(entry);
    }
  }

  /** Deletes the entry unless it was set again since it was read. */
  private deleteIfUnchanged(entry: Deadline): void {
    this.sql.exec(`DELETE FROM deadlines WHERE name = ? AND version = ?`, entry.name, entry.version);
  }

  /** The mirror of deleteIfUnchanged, once storage has taken the deletion. */
  private forgetIfUnchanged(entry: Deadline): void {
    const rows = this.rows();
    if (rows.get(entry.name)?.version === entry.version) rows.delete(entry.name);
  }

  /** Keeps a failed entry, due again after a bounded backoff, and logs one line. */
  private scheduleRetry(entry: Deadline, error: unknown): void {
    const attempts = entry.attempts + 1;
    const retryAt = this.now() + retryDelay(attempts);
    // Conditional on the version: if the handler re-set its entry before throwing, the
    // new setting wins and is not pushed back.
    this.sql.exec(`UPDATE deadlines SET due_at = ?, attempts = ? WHERE name = ? AND version = ?`, retryAt, attempts, entry.name, entry.version);
    const row = this.rows().get(entry.name);
    if (row?.version === entry.version) Object.assign(row, { due_at: retryAt, attempts });
    // Never the payload: it may carry anything a later feature puts there.
    logLine("deadline.handler_failed", {
      name: entry.name,
      kind: entry.kind,
      attempts,
      retry_at: new Date(retryAt).toISOString(),
      error: errorSummary(error),
    });
  }
}

function toDeadline(row: Row): Deadline {
  return {
    name: row.name,
    kind: deadlineKind(row.name),
    dueAt: row.due_at,
    payload: row.payload === null ? undefined : JSON.parse(row.payload),
    version: row.version,
    attempts: row.attempts,
  };
}

function errorSummary(error: unknown): string {
  return (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 300);
}

/** One structured JSON line per event, for Workers Logs and `wrangler tail`. */
function logLine(event: string, fields: Record<string, unknown>): void {
  console.error(JSON.stringify({ level: "error", component: "agent.deadlines", event, ...fields }));
}
