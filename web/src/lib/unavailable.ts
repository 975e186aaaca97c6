import { ApiError } from "./api-client";

/** The API's code while the database does not answer (503, with Retry-After). */
export const DATABASE_UNAVAILABLE = "database.unavailable";

/** What a view shows while it retries a read the database did not answer. */
export const RETRYING_MESSAGE = "The database is not answering; retrying…";

/** What an action's failure says: nothing was retried, the user may try again. */
export const TRY_AGAIN_MESSAGE = "The database is not answering right now; try again in a few seconds.";

/** Whether a failure is the API's 503 database.unavailable. */
export const isDatabaseUnavailable = (error: unknown): error is ApiError => error instanceof ApiError && error.code === DATABASE_UNAVAILABLE;

/**
 * How long to wait before loading again: the answer's Retry-After (details.retry_after_s),
 * else 5 s, kept between 1 and 30 s.
 *
 * @example retryDelayMs(new ApiError(503, "database.unavailable", "…", { retry_after_s: 5 })) // 5000
 */
export function retryDelayMs(error: ApiError): number {
  const seconds = Number(error.details.retry_after_s);
  return Math.min(30, Math.max(1, Number.isFinite(seconds) && seconds > 0 ? seconds : 5)) * 1000;
}

/**
 * When a read that failed so is to be made again: after the Retry-After while the database
 * does not answer, otherwise null (the failure is the read's answer).
 *
 * @example retryAfterMs(new ApiError(503, "database.unavailable", "…", { retry_after_s: 2 })) // 2000
 */
export const retryAfterMs = (error: unknown): number | null => (isDatabaseUnavailable(error) ? retryDelayMs(error) : null);

/**
 * The "retrying" notice of one view, fed by everything that reads for it (its loads, its
 * event stream, the reloads after a drop). A read takes a ticket as it leaves (`begin`), and
 * its outcome (`settle`) shows the notice (the database did not answer) or clears it (an
 * answer came) only when no read that left after it has settled already: a late 503 never
 * covers a newer answer, nor a late answer a newer 503. Any other failure leaves the notice
 * as it is (the view shows that failure its own way).
 */
export interface RetryingNotice {
  begin(): number;
  /** The read's outcome: no error (it answered) or its error; the wait before reading again when the database did not answer, else null. */
  settle(ticket: number, error?: unknown): number | null;
}

/**
 * A RetryingNotice that calls `show` with RETRYING_MESSAGE, then null once an answer came.
 *
 * @example const notice = retryingNotice(failureNotice(setFailure));
 */
export function retryingNotice(show: (message: string | null) => void): RetryingNotice {
  let left = 0;
  let settled = 0;
  let shown = false;
  return {
    begin: () => ++left,
    settle(ticket, error) {
      const wait = error === undefined ? null : retryAfterMs(error);
      if (ticket < settled || (error !== undefined && wait === null)) return wait;
      settled = ticket;
      if (wait !== null || shown) show(wait === null ? null : RETRYING_MESSAGE);
      shown = wait !== null;
      return wait;
    },
  };
}

/**
 * `show` for a view whose one failure line also says it is retrying: the notice replaces the
 * line, and clearing takes away the notice only, never a failure shown since.
 *
 * @example retryingNotice(failureNotice(setFailure))
 */
export const failureNotice =
  (setFailure: (update: (current: string | null) => string | null) => void) =>
  (message: string | null): void =>
    setFailure((current) => message ?? (current === RETRYING_MESSAGE ? null : current));

/**
 * Runs `load` until it answers, waiting each Retry-After while the database does not answer
 * (`notice` says so meanwhile, and clears once it answered); any other failure, or
 * `stopped()` (the view went away), ends it with the error.
 *
 * @example const run = await untilAvailable(() => unwrap(api.GET(…)), notice, () => stopped);
 */
export async function untilAvailable<T>(
  load: () => Promise<T>,
  notice: RetryingNotice,
  stopped: () => boolean,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  for (;;) {
    const ticket = notice.begin();
    let value: T;
    try {
      value = await load();
    } catch (e) {
      const wait = stopped() ? null : notice.settle(ticket, e);
      if (wait === null) throw e;
      await sleep(wait);
      continue;
    }
    if (!stopped()) notice.settle(ticket);
    return value;
  }
}
