/**
 * A bound on how many connections an isolate opens at once.
 *
 * When a thousand agent objects of one isolate wake in the same second, each opens its own
 * connection. Opened all at once, every handshake shares one thread and one database with
 * the others, none finishes within its deadline, and each is given up and opened again: the
 * fires stop. Through the gate a few open at a time, each finishes quickly, and the rest
 * wait their turn without spending anything.
 *
 * A waiter's time in the gate counts against its own deadline (`enter(ms)`), so a database
 * that does not answer still fails every caller within its deadline, queued or not.
 *
 * Each waiter's promise is made in its own call (its own request context): a slot freed by
 * another object resolves it, and workerd runs the continuation in the waiter's context.
 *
 * @example
 *   const gate = new OpeningGate(8);
 *   const leave = await gate.enter(15_000, () => new Error("no connection within 15000 ms"));
 *   try { await client.connect(); } finally { leave(); }
 */
export class OpeningGate {
  #free: number;
  readonly #waiting = new Set<() => void>();

  constructor(readonly size: number) {
    this.#free = size;
  }

  /** Openings in progress. */
  get inUse(): number {
    return this.size - this.#free;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /**
   * A slot, as the function that gives it back (once; later calls do nothing). Rejects with
   * `late()` when no slot came within `ms`; that waiter is forgotten and takes no slot.
   */
  enter(ms: number, late: () => Error): Promise<() => void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#leaver());
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(admit);
        reject(late());
      }, ms);
      const admit = () => {
        clearTimeout(timer);
        resolve(this.#leaver());
      };
      this.#waiting.add(admit);
    });
  }

  /** The one-shot release of a slot: it passes straight to the longest waiter, if any. */
  #leaver(): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#waiting.values().next();
      if (next.done) {
        this.#free++;
        return;
      }
      this.#waiting.delete(next.value);
      next.value();
    };
  }
}
