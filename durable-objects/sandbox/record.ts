/**
 * What the agent object remembers of its sandbox, in its SQLite storage (one row): the
 * metadata the box was created with (SBX-020), its guest token, whether it is up, and
 * the bookkeeping of the idle rules. The token never leaves this row except in the
 * header of a call to the box.
 */
import type { Box, SandboxMetadata } from "../../core/sandbox/metadata";

export interface SandboxRow {
  box: Box;
  metadata: SandboxMetadata;
  token: string;
  /**
   * The Container object's name when it is not the box's own (idFromName of the agent or
   * task): a box taken from the warm pool keeps the pool's name; null for a box started cold.
   */
  container: string | null;
  running: boolean;
  /** When the idle timer was last armed (SBX-030's 30 s rule), or null. */
  armedAt: number | null;
  /** A secret changed while the agent generated: destroy before the lock is released (SEC-009). */
  destroyAfterGeneration: boolean;
  createdAt: number;
}

/** The last ensure that failed, for sandboxState (kept apart from the box's row). */
export type SandboxFailure = {
  code: string;
  message: string;
  at: number;
};

/**
 * The last save of the home that failed, until one succeeds (SBX-036): the box is kept
 * meanwhile, and the agent's sandbox state shows it as `sandbox.home_save_failed`.
 */
export type HomeSaveFailure = {
  /** Why: `workspace.full` (the archive passed its cap) or the box's or R2's code. */
  code: string;
  message: string;
  at: number;
  /** Failed saves in a row. */
  attempts: number;
};

type Row = {
  box: string;
  metadata: string;
  token: string;
  container: string | null;
  running: number;
  armed_at: number | null;
  destroy_after_generation: number;
  created_at: number;
};

export class SandboxRecord {
  constructor(private readonly sql: SqlStorage) {}

  static migrate(sql: SqlStorage): void {
    sql.exec(`CREATE TABLE IF NOT EXISTS sandbox (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      box TEXT NOT NULL,
      metadata TEXT NOT NULL,
      token TEXT NOT NULL,
      running INTEGER NOT NULL,
      armed_at INTEGER,
      destroy_after_generation INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL
    )`);
    // Added with the warm pool: older objects' rows name no container (their box's own name).
    const columns = sql.exec<{ name: string }>(`PRAGMA table_info(sandbox)`).toArray();
    if (!columns.some((column) => column.name === "container")) sql.exec(`ALTER TABLE sandbox ADD COLUMN container TEXT`);
    sql.exec(`CREATE TABLE IF NOT EXISTS sandbox_home_save (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      code TEXT NOT NULL,
      message TEXT NOT NULL,
      at INTEGER NOT NULL,
      attempts INTEGER NOT NULL
    )`);
    sql.exec(`CREATE TABLE IF NOT EXISTS sandbox_failure (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      code TEXT NOT NULL,
      message TEXT NOT NULL,
      at INTEGER NOT NULL
    )`);
  }

  get(): SandboxRow | null {
    const row = this.sql.exec<Row>(`SELECT * FROM sandbox WHERE id = 1`).toArray()[0];
    if (!row) return null;
    return {
      box: row.box as Box,
      metadata: JSON.parse(row.metadata) as SandboxMetadata,
      token: row.token,
      container: row.container ?? null,
      running: row.running === 1,
      armedAt: row.armed_at,
      destroyAfterGeneration: row.destroy_after_generation === 1,
      createdAt: row.created_at,
    };
  }

  /** A box was created with this metadata and token, in the Container object `container` (null: the box's own name). */
  created(metadata: SandboxMetadata, token: string, container: string | null, now: number): void {
    this.sql.exec(
      `INSERT INTO sandbox (id, box, metadata, token, container, running, armed_at, destroy_after_generation, created_at)
       VALUES (1, ?, ?, ?, ?, 1, NULL, 0, ?)
       ON CONFLICT (id) DO UPDATE SET box = excluded.box, metadata = excluded.metadata, token = excluded.token,
         container = excluded.container, running = 1, armed_at = NULL, destroy_after_generation = 0, created_at = excluded.created_at`,
      metadata.box,
      JSON.stringify(metadata),
      token,
      container,
      now,
    );
    this.sql.exec(`DELETE FROM sandbox_failure`);
  }

  /** The box is gone (destroyed, or found dead). The metadata stays for diagnostics. */
  stopped(): void {
    this.sql.exec(`UPDATE sandbox SET running = 0, armed_at = NULL, destroy_after_generation = 0`);
  }

  armed(at: number | null): void {
    this.sql.exec(`UPDATE sandbox SET armed_at = ?`, at);
  }

  destroyAfterGeneration(): void {
    this.sql.exec(`UPDATE sandbox SET destroy_after_generation = 1`);
  }

  failure(): SandboxFailure | null {
    return this.sql.exec<SandboxFailure>(`SELECT code, message, at FROM sandbox_failure WHERE id = 1`).toArray()[0] ?? null;
  }

  failed(code: string, message: string, at: number): void {
    this.sql.exec(
      `INSERT INTO sandbox_failure (id, code, message, at) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET code = excluded.code, message = excluded.message, at = excluded.at`,
      code,
      message,
      at,
    );
  }

  homeSaveFailure(): HomeSaveFailure | null {
    return this.sql.exec<HomeSaveFailure>(`SELECT code, message, at, attempts FROM sandbox_home_save WHERE id = 1`).toArray()[0] ?? null;
  }

  /** One more failed save; → the failures in a row. */
  homeSaveFailed(code: string, message: string, at: number): number {
    this.sql.exec(
      `INSERT INTO sandbox_home_save (id, code, message, at, attempts) VALUES (1, ?, ?, ?, 1)
       ON CONFLICT (id) DO UPDATE SET code = excluded.code, message = excluded.message, at = excluded.at, attempts = attempts + 1`,
      code,
      message,
      at,
    );
    return this.homeSaveFailure()?.attempts ?? 1;
  }

  /** A save succeeded, or the home was reset: nothing is waiting to be saved. */
  homeSaved(): void {
    this.sql.exec(`DELETE FROM sandbox_home_save`);
  }
}
