/**
 * The task run this object drives, in the object's own storage: which run, and its gateway
 * credential (TASK-011). The row is written when a run starts and deleted once its ending
 * is written, so a row found without a live driver is a run the object lost (evicted,
 * crashed): recovery finalizes it. The credential dies with the row.
 */
import { sameCredential } from "../../core/tasks/credential";

export interface InFlight {
  taskRunId: string;
  runId: string;
  taskId: string;
  credential: string;
  startedAt: number;
}

export class TaskRunState {
  #cached: InFlight | null | undefined;

  constructor(private readonly sql: SqlStorage) {}

  static migrate(sql: SqlStorage): void {
    sql.exec(`CREATE TABLE IF NOT EXISTS task_run_state (
      task_run_id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL,
      task_id TEXT NOT NULL,
      credential TEXT NOT NULL,
      started_at INTEGER NOT NULL
    )`);
  }

  /** The run in flight, or null. */
  get(): InFlight | null {
    if (this.#cached !== undefined) return this.#cached;
    const row = this.sql.exec("SELECT task_run_id, run_id, task_id, credential, started_at FROM task_run_state LIMIT 1").toArray()[0];
    this.#cached = row
      ? {
          taskRunId: String(row.task_run_id),
          runId: String(row.run_id),
          taskId: String(row.task_id),
          credential: String(row.credential),
          startedAt: Number(row.started_at),
        }
      : null;
    return this.#cached;
  }

  begin(run: InFlight): void {
    this.sql.exec("DELETE FROM task_run_state");
    this.sql.exec(
      "INSERT INTO task_run_state (task_run_id, run_id, task_id, credential, started_at) VALUES (?, ?, ?, ?, ?)",
      run.taskRunId,
      run.runId,
      run.taskId,
      run.credential,
      run.startedAt,
    );
    this.#cached = run;
  }

  /** The run's ending is written: nothing is in flight and its credential is dead. */
  end(taskRunId: string): void {
    this.sql.exec("DELETE FROM task_run_state WHERE task_run_id = ?", taskRunId);
    this.#cached = undefined;
  }

  /** Whether `presented` is the credential of the task's run in flight (constant time). */
  authorizes(taskId: string, presented: string): boolean {
    const run = this.get();
    return sameCredential(run && run.taskId === taskId ? run.credential : null, presented);
  }
}
