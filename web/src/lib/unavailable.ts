import { ApiError } from "./api-client";

/** The API's code while the database does not answer (503, with Retry-After). */
export const DATABASE_UNAVAILABLE = "database.unavailable";

/** What a view shows while it retries a load the database did not answer. */
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
 * Runs `load` until it answers, waiting each Retry-After while the database does not answer
 * (`waiting` shows RETRYING_MESSAGE, then null once it answered); any other failure, or
 * `stopped()` (the view went away), ends it with the error.
 *
 * @example const run = await untilAvailable(() => unwrap(api.GET(…)), setFailure, () => stopped);
 */
export async function untilAvailable<T>(
  load: () => Promise<T>,
  waiting: (message: string | null) => void,
  stopped: () => boolean,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  for (let waited = false; ; waited = true) {
    try {
      const value = await load();
      if (waited) waiting(null);
      return value;
    } catch (e) {
      if (!isDatabaseUnavailable(e) || stopped()) throw e;
      waiting(RETRYING_MESSAGE);
      await sleep(retryDelayMs(e));
    }
  }
}
