/**
 * When a GitHub request that failed is worth sending again, and after how long. Pure: the
 * forge plugin (forge-plugin.ts) asks it after each attempt.
 *
 * - A rate limit (429, or 403 with `retry-after` or `x-ratelimit-remaining: 0`) refused the
 *   request without doing anything: any request may go again, after what GitHub asks
 *   (`retry-after` seconds, else until `x-ratelimit-reset`), if that is within `maxWaitMs`.
 * - No answer, or 500/502/503/504: the request may have been done, so only a request whose
 *   repeat is harmless (`idempotent`) goes again, after an exponential back-off.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** The first back-off; each later one doubles it. */
  baseMs: number;
  /** A rate limit that asks for longer than this is not waited for: the call fails, saying so. */
  maxWaitMs: number;
}

export const GITHUB_RETRY: RetryPolicy = { attempts: 3, baseMs: 500, maxWaitMs: 10_000 };

const SERVER_TROUBLE = new Set([500, 502, 503, 504]);

/** A failed attempt: its status (null when nothing answered) and the answer's headers. */
export interface FailedAttempt {
  status: number | null;
  headers?: { get(name: string): string | null };
}

/**
 * Milliseconds to wait before attempt `attempt + 1` (attempts count from 0), or null when
 * the failure stands.
 *
 * @example retryWait({ status: 502 }, 0, { idempotent: true, now: 0 }) // 500
 * @example retryWait({ status: 429, headers: new Headers({ "retry-after": "2" }) }, 0, { idempotent: false, now: 0 }) // 2000
 * @example retryWait({ status: 404 }, 0, { idempotent: true, now: 0 }) // null
 */
export function retryWait(failed: FailedAttempt, attempt: number, options: { idempotent: boolean; now: number }, policy = GITHUB_RETRY): number | null {
  if (attempt + 1 >= policy.attempts) return null;
  const backOff = policy.baseMs * 2 ** attempt;
  const limited = rateLimitWait(failed, options.now);
  if (limited !== null) return limited === "unknown" ? backOff : limited <= policy.maxWaitMs ? limited : null;
  if (failed.status === null || SERVER_TROUBLE.has(failed.status)) return options.idempotent ? backOff : null;
  return null;
}

/**
 * How long a rate limit asks to wait (ms), "unknown" for a limit that does not say, or null
 * when the failure is not a rate limit.
 */
export function rateLimitWait(failed: FailedAttempt, now: number): number | "unknown" | null {
  const header = (name: string) => failed.headers?.get(name) ?? null;
  const retryAfter = header("retry-after");
  const exhausted = header("x-ratelimit-remaining") === "0";
  if (failed.status !== 429 && !(failed.status === 403 && (retryAfter !== null || exhausted))) return null;
  if (retryAfter !== null && /^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
  const reset = header("x-ratelimit-reset");
  if (exhausted && reset !== null && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now);
  return "unknown";
}
