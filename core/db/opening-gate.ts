/** Gives a slot back; `opened` says the connection opened (the queue moves). */
export type Leave = (opened?: boolean) => void;

/**
 * A bound on how many connections an isolate opens at once.
 *
 * When a thousand agent objects of one isolate wake in the same second, each opens its own
 * connection. Opened all at once, every handshake shares one thread and one database with
 * the others, none finishes within its deadline, and each is given up and opened again: the
 * fires stop. Through the gate a few open at a time, each finishes quickly, and the rest
 * wait their turn without spending anything.
 *
 * A waiter gives up (`enter(ms)`) only when no opening has succeeded within its `ms`: a
 * database that does not answer still fails every caller within its deadline, queued or not,
 * while a long queue that moves is waited out. (Failing a queued caller at its deadline while
 * others were being served turned a burst into retries: each failed fire came back later, and
 * queued again.)
 *
 * Each waiter's promise is made in its own call (its own request context): a slot freed by
 * another object resolves it, and workerd runs the continuation in the waiter's context.
 *
 * @example
 *   const gate = new OpeningGate(8);
 *   const leave = await gate.enter(15_000, () => new Error("no connection within 15000 ms"));
 *   await client.connect().then(() => leave(true), () => leave(false));
 */
export class OpeningGate {
  #free: number;
  readonly #waiting = new Set<() => void>();
  /** When an opening last succeeded (Date.now()); a moving queue is waited out. */
  #progressAt = 0;

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
   * A slot, as the function that gives it back, saying whether the connection opened (once;
   * later calls do nothing). Rejects with `late()` once `ms` passed with no slot and no
   * opening succeeded in the last `ms`; that waiter is forgotten and takes no slot.
   */
  enter(ms: number, late: () => Error): Promise<Leave> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#leaver());
    }
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout>;
      const check = () => {
        if (Date.now() - this.#progressAt < ms) {
          timer = setTimeout(check, ms);
          return;
        }
        this.#waiting.delete(admit);
        reject(late());
      };
      timer = setTimeout(check, ms);
      const admit = () => {
        clearTimeout(timer);
        resolve(this.#leaver());
      };
      this.#waiting.add(admit);
    });
  }

  /** The one-shot release of a slot: it passes straight to the longest waiter, if any. */
  #leaver(): Leave {
    let left = false;
    return (opened = false) => {
      if (left) return;
      left = true;
      if (opened) this.#progressAt = Date.now();
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
