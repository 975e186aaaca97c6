import { sql } from "drizzle-orm";
import { Hono } from "hono";
import type * as z from "zod";
import { type openDatabase, REQUEST_DEADLINE_MS } from "../../core/db/client";
import { openEdgeDatabase } from "../../core/db/http";
import { withoutAddresses } from "../../core/output/log";
import { type SecretsReport, secretProblems, secretsReport } from "../../core/secrets/required";
import journal from "../../migrations/meta/_journal.json";
import type { AppEnv } from "../http/context";
import { ok, operation } from "../http/contract";
import { Health } from "./health.schema";

/** The schema version this build expects: the newest migration it ships. */
const expected = journal.entries.at(-1)!;

type HealthBody = z.infer<typeof Health>;
/** The database check's part of the answer; the secrets are judged on every request (no I/O). */
type DatabaseBody = Omit<HealthBody, "secrets" | "problems">;

/** How long one database check answers every health request of this isolate; a failed one is retried sooner. */
export const HEALTH_CHECK_TTL_MS = 5_000;
const DOWN_TTL_MS = 1_000;
/** A check that has not answered by then no longer holds other requests on the old answer. */
const CHECK_TIMEOUT_MS = 10_000;

/** One answer of the database check and when it was made. */
interface Checked {
  at: number;
  status: 200 | 503;
  body: DatabaseBody;
}

/**
 * The isolate's shared check: one answer serves every request for a TTL, and while a new
 * check runs the previous answer stands. Checks are numbered so that one that outlived
 * CHECK_TIMEOUT_MS neither clears the in-flight mark of its successor nor replaces its newer answer.
 *
 * @example const cached = sharedCheck(); const answer = await cached(() => checkDatabase(env, waitUntil));
 */
export function sharedCheck(clock: () => number = Date.now) {
  let last: Checked | undefined;
  let lastNumber = 0;
  let started = 0;
  let checkingSince: number | undefined;
  return async (run: () => Promise<Checked>): Promise<Checked> => {
    const now = clock();
    const fresh = last && now - last.at < (last.status === 200 ? HEALTH_CHECK_TTL_MS : DOWN_TTL_MS);
    const checking = checkingSince !== undefined && now - checkingSince < CHECK_TIMEOUT_MS;
    if (last && (fresh || checking)) return last;
    const number = ++started;
    checkingSince = now;
    try {
      const result = await run();
      if (number > lastNumber) [last, lastNumber] = [result, number];
      return last ?? result;
    } finally {
      if (number === started) checkingSince = undefined;
    }
  };
}

const cachedCheck = sharedCheck();

/**
 * `GET /api/health` (no auth): whether Postgres answers, which migration it is at, and
 * whether the required secrets are set and readable. 200 when the database is reachable,
 * 503 when not; "degraded" (still 200) means the database runs an older schema than this
 * build expects or a required secret is missing or unreadable, each named in `problems`
 * (names only, never values). Anonymous callers must not
 * cost a database connection each: one check serves this isolate for a few seconds
 * (`checked_at` says when it answered), and while a new one runs the previous answer stands.
 */
export const healthRoutes = new Hono<AppEnv>().get(
  "/",
  operation({
    operationId: "getHealth",
    summary: "Database reachability, schema version and required secrets (one database check serves a few seconds)",
    tag: "Platform",
    public: true,
    responses: {
      200: ok("The database answers: status ok, or degraded (an older schema, a required secret missing or unreadable; see problems)", Health),
      503: ok("The database cannot be reached (status down)", Health),
    },
  }),
  async (c) => {
    const [answer, secrets] = await Promise.all([
      cachedCheck(() => checkDatabase(c.env, (closing) => c.executionCtx.waitUntil(closing))),
      secretsReport(c.env),
    ]);
    return c.json(healthBody(answer.body, secrets), answer.status);
  },
);

/**
 * The answer: the database check's, degraded when a required secret is missing or
 * unreadable, with every reason it is not ok named in `problems`.
 *
 * @example healthBody(okBody, { missing: ["MODEL_API_KEY"], unreadable: [] }).status // "degraded"
 */
export function healthBody(checked: DatabaseBody, secrets: SecretsReport): HealthBody {
  const problems = [...secretProblems(secrets)];
  if (checked.status === "down") problems.unshift(`the database cannot be reached${checked.database.error ? `: ${checked.database.error}` : ""}`);
  else if (!checked.schema.up_to_date) {
    problems.unshift(`the database runs schema ${checked.schema.version ?? "(none)"}, this build expects ${checked.schema.expected}`);
  }
  const status = checked.status === "ok" && problems.length > 0 ? "degraded" : checked.status;
  return { ...checked, status, secrets, problems };
}

async function checkDatabase(env: AppEnv["Bindings"], waitUntil: (closing: Promise<void>) => void): Promise<Checked> {
  const started = Date.now();
  const expectedTag = expected.tag;
  let conn: ReturnType<typeof openDatabase> | undefined;
  try {
    // The path the Worker's requests take (decision 0023).
    conn = openEdgeDatabase(env, { deadlineMs: REQUEST_DEADLINE_MS });
    const applied = await conn.db.execute<{ n: number; latest: string | null }>(sql`
      select count(*)::int as n, max(created_at)::text as latest from drizzle.__drizzle_migrations`);
    const row = applied.rows[0];
    const latest = journal.entries.find((e) => String(e.when) === row?.latest);
    const upToDate = latest?.idx === expected.idx;
    const at = Date.now();
    return {
      at,
      status: 200,
      body: {
        status: upToDate ? "ok" : "degraded",
        checked_at: new Date(at).toISOString(),
        database: { reachable: true, latency_ms: at - started },
        schema: { applied: row?.n ?? 0, version: latest?.tag ?? null, expected: expectedTag, up_to_date: upToDate },
      },
    };
  } catch (error) {
    const at = Date.now();
    return {
      at,
      status: 503,
      body: {
        status: "down",
        checked_at: new Date(at).toISOString(),
        database: { reachable: false, latency_ms: null, error: errorReason(error) },
        schema: { applied: null, version: null, expected: expectedTag, up_to_date: false },
      },
    };
  } finally {
    if (conn) waitUntil(conn.close());
  }
}

/**
 * A short reason without connection strings (which carry the password) or WebSocket
 * addresses (the local proxy's carries its secret path): anonymous callers read it.
 */
export function errorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return withoutAddresses(message).slice(0, 200);
}
