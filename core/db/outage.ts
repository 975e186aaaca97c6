/**
 * Riding out a database outage. A write the generation must not lose (a committed model
 * reply, a tool result, an interruption result) is retried while Postgres is unreachable,
 * so a restart or a failover of a few seconds costs a pause, not a broken run.
 *
 * Only connection failures are retried. A statement Postgres refused (a constraint, a
 * type error) fails at once: trying it again would give the same answer.
 */

/** SQLSTATE classes and codes that mean "the server cannot be used now": connection, shutdown, too many clients. */
const UNAVAILABLE_STATES = [/^08/, /^57P0[123]$/, /^53300$/];
/** ...and those that mean "not this time" (a serialization failure, a deadlock): worth another try. */
const TRANSIENT_STATES = [...UNAVAILABLE_STATES, /^40001$/, /^40P01$/];

/** Postgres's code for a unique violation: a retried insert that had in fact committed. */
export const UNIQUE_VIOLATION = "23505";

/** The SQLSTATE of a Postgres error, looking through wrappers (drizzle's `cause`). */
export function sqlState(error: unknown): string | null {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/**
 * Whether an error is the database being unreachable (worth waiting for), rather than
 * a statement it refused or a bug in our code.
 *
 * @example isTransient(Object.assign(new Error("terminating connection"), { code: "57P01" })) // true
 * @example isTransient(Object.assign(new Error("duplicate key"), { code: "23505" }))         // false
 */
export function isTransient(error: unknown): boolean {
  const state = sqlState(error);
  if (state) return TRANSIENT_STATES.some((p) => p.test(state));
  // No SQLSTATE: the driver never got an answer (socket closed, connection refused), or
  // the error is ours and would fail the same way again. Only the former is worth a wait.
  return messages(error).some((m) => CONNECTION_FAILURE.test(m));
}

/**
 * Whether an error is the database being unreachable or not answering (a connection
 * failure, a shutdown, a call past its deadline), as opposed to a statement it refused.
 *
 * @example isConnectionFailure(new Error("connect ECONNREFUSED 127.0.0.1:5432")) // true
 * @example isConnectionFailure(Object.assign(new Error("could not serialize"), { code: "40001" })) // false
 */
export function isConnectionFailure(error: unknown): boolean {
  const state = sqlState(error);
  if (state) return UNAVAILABLE_STATES.some((p) => p.test(state));
  return messages(error).some((m) => CONNECTION_FAILURE.test(m));
}

/**
 * What drivers say when the server could not be reached or went away mid-statement, and
 * what a call past its deadline says (client.ts DatabaseUnavailable; not a missing DATABASE_URL).
 */
const CONNECTION_FAILURE =
  /database\.unavailable: (?:no (?:answer|connection)|the connection)|connection (?:terminated|refused|reset|closed|lost|error|timeout|timed out)|network connection lost|websocket|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket hang up|timeout exceeded when trying to connect|terminating connection|server closed the connection|the database system is (?:starting up|shutting down)|too many clients/i;

function messages(error: unknown): string[] {
  const out: string[] = [];
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof Error) out.push(e.message);
    else if (typeof e === "string") out.push(e);
    if (typeof e !== "object") break;
  }
  return out;
}

export interface OutagePolicy {
  /** Give up after this long, in ms. */
  budgetMs: number;
  /** First pause, doubled up to `maxPauseMs`. */
  firstPauseMs: number;
  maxPauseMs: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Long enough for a Postgres restart or a Neon compute waking up. */
export const WRITE_OUTAGE_POLICY: OutagePolicy = { budgetMs: 45_000, firstPauseMs: 250, maxPauseMs: 4_000 };

/**
 * Runs `attempt` until it succeeds, fails with a non-transient error, or the budget is
 * spent. `attempt` receives the attempt number (0 first), so a retried insert can tell
 * it may have committed already.
 *
 * @example
 *   await riding((n) => n === 0 ? insert(row) : insertOrConfirm(row));
 */
export async function riding<T>(attempt: (n: number) => Promise<T>, policy: OutagePolicy = WRITE_OUTAGE_POLICY): Promise<T> {
  const now = policy.now ?? Date.now;
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  let pause = policy.firstPauseMs;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!isTransient(error) || now() - started + pause > policy.budgetMs) throw error;
      await sleep(pause);
      pause = Math.min(pause * 2, policy.maxPauseMs);
    }
  }
}
