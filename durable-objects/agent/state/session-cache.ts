import type { Database } from "../../../core/db/client";
import type { ScriptChange } from "../../../core/scripts/types";
import { type RowSink, RunSession } from "./run-session";

/** Memory the cached sessions may hold together (the object has 128 MB in all). */
export const SESSION_BUDGET_BYTES = 24 * 1024 * 1024;

/**
 * The runs an agent object keeps in memory between generations. Loads are single-flight
 * (callers asking for one run at once share one load and one copy), the cache is bounded
 * by the bytes of its rows with the least recently used going first, and a session whose
 * memory may no longer match the database (`stale`) is dropped and loaded again.
 *
 * @example
 *   const session = await cache.get(runId); // null for an unknown run
 */
export class SessionCache {
  private readonly sessions = new Map<string, RunSession>();
  private readonly loading = new Map<string, Promise<RunSession | null>>();
  /** What the cached sessions may hold together, in bytes; tests lower it. */
  budgetBytes = SESSION_BUDGET_BYTES;

  /**
   * @param db the object's connection
   * @param rows where the sessions' committed rows go live (the object's hub)
   * @param pinned the run whose session must stay cached (the one generating)
   */
  constructor(
    private readonly db: () => Database,
    private readonly rows: RowSink,
    private readonly pinned: () => string | undefined,
  ) {}

  /** The run's session, from memory or loaded once from Postgres. */
  async get(runId: string): Promise<RunSession | null> {
    const cached = this.sessions.get(runId);
    if (cached && !cached.stale) {
      // Most recently used last, so the oldest is evicted first.
      this.sessions.delete(runId);
      this.sessions.set(runId, cached);
      return cached;
    }
    if (cached) this.forget(cached);
    const pending = this.loading.get(runId);
    if (pending) return pending;
    const load = RunSession.load(this.db(), runId)
      .then((loaded) => {
        if (loaded) this.remember(loaded);
        return loaded;
      })
      .finally(() => this.loading.delete(runId));
    this.loading.set(runId, load);
    return load;
  }

  /** Keeps a session the object built from what it wrote itself (a run it just opened). */
  add(session: RunSession): void {
    this.remember(session);
  }

  /** Drops a session whose memory may not match the database. */
  forget(session: RunSession): void {
    if (this.sessions.get(session.runId) === session) this.sessions.delete(session.runId);
  }

  /** Drops every session (the agent was deleted). */
  clear(): void {
    this.sessions.clear();
  }

  /**
   * Deleted scripts leave the snapshots of the runs held here (EXACT-025, SCRIPT-028), as
   * the same statement that deleted them did in Postgres.
   */
  forgetScripts(change: ScriptChange): void {
    if (change.action === "create") return;
    for (const session of this.sessions.values()) {
      session.snapshot.scripts = change.action === "clear" ? [] : session.snapshot.scripts.filter((s) => s.name !== change.name);
    }
  }

  /** Whether a load is in flight: the object's connection must stay open under it. */
  get busy(): boolean {
    return this.loading.size > 0;
  }

  /** The cached runs (least recently used first) and their bytes: for diagnostics and tests. */
  list(): Array<{ runId: string; bytes: number }> {
    return [...this.sessions.values()].map((s) => ({ runId: s.runId, bytes: s.bytes }));
  }

  private remember(session: RunSession): void {
    session.live = this.rows;
    this.sessions.set(session.runId, session);
    let total = 0;
    for (const s of this.sessions.values()) total += s.bytes;
    const pinned = this.pinned();
    for (const [id, s] of this.sessions) {
      if (total <= this.budgetBytes || this.sessions.size <= 1) break;
      if (id === pinned || id === session.runId) continue;
      this.sessions.delete(id);
      total -= s.bytes;
    }
  }
}
