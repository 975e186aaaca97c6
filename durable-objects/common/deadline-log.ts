/**
 * The object's own diagnostic history of fired deadlines: one row per successful firing,
 * whatever the kind, bounded to the last `DEADLINE_LOG_LIMIT` rows. It answers "did the
 * alarm path run, what fired and when" without Postgres or log search, and it is how the
 * multiplexer is observable end to end before any feature registers a real kind.
 */

export const DEADLINE_LOG_LIMIT = 100;

/** One firing, times in epoch milliseconds. */
export interface FiredDeadline {
  name: string;
  dueAt: number;
  firedAt: number;
}

type Row = { name: string; due_at: number; fired_at: number };

export class DeadlineLog {
  constructor(private readonly sql: SqlStorage) {}

  /** Creates the table; idempotent. `id` orders the firings (rowid, never reused here). */
  static migrate(sql: SqlStorage): void {
    sql.exec(`CREATE TABLE IF NOT EXISTS deadline_log (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      due_at INTEGER NOT NULL,
      fired_at INTEGER NOT NULL
    )`);
  }

  /** Appends a firing and trims the table to the newest rows. */
  record(name: string, dueAt: number, firedAt: number): void {
    this.sql.exec(`INSERT INTO deadline_log (name, due_at, fired_at) VALUES (?, ?, ?)`, name, dueAt, firedAt);
    this.sql.exec(`DELETE FROM deadline_log WHERE id <= (SELECT MAX(id) FROM deadline_log) - ?`, DEADLINE_LOG_LIMIT);
  }

  /** The kept firings, oldest first. */
  list(): FiredDeadline[] {
    return this.sql
      .exec<Row>(`SELECT name, due_at, fired_at FROM deadline_log ORDER BY id`)
      .toArray()
      .map((row) => ({ name: row.name, dueAt: row.due_at, firedAt: row.fired_at }));
  }
}
