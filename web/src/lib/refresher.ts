import { retryAfterMs } from "./unavailable";

/**
 * Reloads a view's data from the API, one request at a time, so an answer never lands on
 * top of a newer one, and never over what the user just did: `changed()` marks that the
 * view took an action's own answer (a task cancelled, a message sent), and an answer to a
 * request that left before that is dropped and asked again. A load the database did not
 * answer is made again after its Retry-After (the view's `onError` says it is retrying).
 *
 * @example
 *   const board = createRefresher(() => loadTasks(), setTasks, (e) => setFailure(describe(e)));
 *   board.refresh();                         // on a poll tick or an event
 *   setTasks((ts) => [...ts, created]); board.changed(); board.refresh();
 */
export interface Refresher {
  /** Loads again; while a load is on its way, one more follows it (calls in between collapse). Settles when the view is up to date. */
  refresh(): Promise<void>;
  /** The view changed by the user's hand: answers to requests sent before are dropped. */
  changed(): void;
  /** The view is gone: nothing is applied any more. */
  stop(): void;
}

export function createRefresher<T>(load: () => Promise<T>, apply: (value: T) => void, onError: (error: unknown) => void = () => {}): Refresher {
  let epoch = 0;
  let again = false;
  let stopped = false;
  let running: Promise<void> | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const loop = async () => {
    do {
      again = false;
      clearTimeout(retry);
      const stamp = epoch;
      try {
        const value = await load();
        if (stopped) return;
        if (stamp === epoch) apply(value);
        else again = true;
      } catch (e) {
        if (stopped) return;
        onError(e);
        const wait = retryAfterMs(e);
        if (wait !== null) retry = setTimeout(() => void refresher.refresh(), wait);
      }
    } while (again && !stopped);
  };

  const refresher: Refresher = {
    refresh() {
      clearTimeout(retry);
      if (stopped) return Promise.resolve();
      if (running) {
        again = true;
        return running;
      }
      running = loop().finally(() => {
        running = null;
      });
      return running;
    },
    changed() {
      epoch++;
    },
    stop() {
      stopped = true;
      clearTimeout(retry);
    },
  };
  return refresher;
}
