import { busy, type Refused } from "../../../bindings/outcome";
import type { DeadlineMultiplexer } from "../../common/deadlines";
import { StoredLock } from "./stored-lock";

/** The lease a generation holds; the heartbeat renews it well before it runs out. */
export const LEASE_MS = 60_000;
export const HEARTBEAT_MS = 20_000;
/** The heartbeat's deadline on the object's alarm. */
export const HEARTBEAT = "generation.heartbeat";

/** The generation this object instance runs, from the moment it took the lock. */
export interface ActiveGeneration {
  runId: string;
  generation: number;
  /** Aborts the model call or the tool in flight (cancel). */
  controller: AbortController;
  /** Settles when the lock leaves this generation (released, or handed to a continuation). */
  done: Promise<void>;
}

/**
 * The agent's generation lock (GEN-002: one generation at a time per agent, across all of
 * its runs): the stored row that outlives the object (stored-lock.ts), the generation this
 * instance runs in memory, and the heartbeat that renews the row's lease.
 *
 * The invariant: the stored row and `active` change together, in one synchronous turn.
 * While this instance holds the row, `active` names the same run and generation; a
 * request that finds the lock held by this instance is busy, whatever the holder awaits.
 * A row without `active` is another instance's (or a dead one's): an orphan for recovery.
 *
 * @example
 *   const claimed = await lock.claim(runId, 1);
 *   if (!claimed.ok) return claimed; // 409 agent.busy naming the holder
 *   try { ... } finally { await lock.release(runId); }
 */
export class GenerationLock {
  readonly stored: StoredLock;
  #active: (ActiveGeneration & { finish(): void }) | null = null;
  #claims = 0;

  constructor(
    sql: SqlStorage,
    private readonly deadlines: DeadlineMultiplexer,
    private readonly now: () => number,
  ) {
    this.stored = new StoredLock(sql, now);
  }

  static migrate(sql: SqlStorage): void {
    StoredLock.migrate(sql);
  }

  /** The generation this instance runs, if any. */
  get active(): ActiveGeneration | null {
    return this.#active;
  }

  /**
   * How many generations this instance has marked active (claimed or handed over): a read
   * made before a claim is still this agent's latest when only that claim came after it.
   */
  get claims(): number {
    return this.#claims;
  }

  /** The held lock (this instance's or not), or null when the agent is not generating. */
  held() {
    return this.stored.current();
  }

  /**
   * Takes the lock for `runId`'s generation and marks it active in the same turn, then arms
   * the heartbeat, so recovery finds the lock if this instance dies before it ends.
   */
  async claim(runId: string, generation: number): Promise<(ActiveGeneration & { ok: true }) | Refused> {
    const acquired = this.stored.acquire(runId, generation, LEASE_MS);
    if (!acquired.ok) return busy(acquired.busyRunId);
    const active = this.#activate(runId, generation);
    try {
      await this.deadlines.set(HEARTBEAT, this.now() + HEARTBEAT_MS);
    } catch (error) {
      await this.release(runId);
      throw error;
    }
    return { ok: true, ...active };
  }

  /** Frees the lock `runId` holds (a no-op for any other run) and disarms the heartbeat. */
  async release(runId: string): Promise<void> {
    this.stored.release(runId);
    const active = this.#active;
    if (active?.runId === runId) {
      this.#active = null;
      active.finish();
    }
    await this.deadlines.clear(HEARTBEAT);
  }

  /**
   * Passes the lock from a run to its continuation's first generation without releasing it
   * (CHAIN-010), so no other generation or delivery slips in between; the heartbeat stays.
   */
  handOver(fromRunId: string, toRunId: string): ActiveGeneration {
    if (!this.stored.handOver(fromRunId, toRunId, 1, LEASE_MS)) throw new Error(`run ${fromRunId} does not hold the lock it hands over`);
    const previous = this.#active;
    const next = this.#activate(toRunId, 1);
    previous?.finish();
    return next;
  }

  /**
   * Recovery found the lock of a dead generation whose chain has a continuation that never
   * generated: the orphan's row goes and the continuation's first generation claims it.
   */
  async pickUp(orphanRunId: string, runId: string): Promise<(ActiveGeneration & { ok: true }) | Refused> {
    this.stored.release(orphanRunId);
    return this.claim(runId, 1);
  }

  /**
   * The heartbeat deadline: renews the lease while this instance generates. "orphaned" when
   * the held lock is not this instance's live generation (recovery's turn); "free" when none.
   */
  async beat(): Promise<"renewed" | "orphaned" | "free"> {
    const held = this.stored.current();
    if (!held) return "free";
    if (this.#active?.runId !== held.runId) return "orphaned";
    this.stored.renew(held.runId, LEASE_MS);
    await this.deadlines.set(HEARTBEAT, this.now() + HEARTBEAT_MS);
    return "renewed";
  }

  /** Marks `runId`'s generation active; what callers get has no way to settle `done` themselves. */
  #activate(runId: string, generation: number): ActiveGeneration {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const active = { runId, generation, controller: new AbortController(), done };
    this.#active = { ...active, finish };
    this.#claims++;
    return active;
  }
}
