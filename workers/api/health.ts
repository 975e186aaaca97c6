import { sql } from "drizzle-orm";
import { Hono } from "hono";
import type * as z from "zod";
import type { openDatabase } from "../../core/db/client";
import { openEdgeDatabase } from "../../core/db/http";
import { withoutAddresses } from "../../core/output/log";
import journal from "../../migrations/meta/_journal.json";
import type { AppEnv } from "../http/context";
import { ok, operation } from "../http/contract";
import { Health } from "./health.schema";

/** The schema version this build expects: the newest migration it ships. */
const expected = journal.entries.at(-1)!;

type HealthBody = z.infer<typeof Health>;

/** How long one database check answers every health request of this isolate; a failed one is retried sooner. */
export const HEALTH_CHECK_TTL_MS = 5_000;
const DOWN_TTL_MS = 1_000;
/** A check that has not answered by then no longer holds other requests on the old answer. */
const CHECK_TIMEOUT_MS = 10_000;

/** One answer of the database check and when it was made. */
interface Checked {
  at: number;
  status: 200 | 503;
  body: HealthBody;
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
 * `GET /api/health` (no auth): whether Postgres answers and which migration it
 * is at. 200 when the database is reachable, 503 when not; "degraded" means the
 * database runs an older schema than this build expects. Anonymous callers must not
 * cost a database connection each: one check serves this isolate for a few seconds
 * (`checked_at` says when it answered), and while a new one runs the previous answer stands.
 */
export const healthRoutes = new Hono<AppEnv>().get(
  "/",
  operation({
    operationId: "getHealth",
    summary: "Database reachability and schema version (one check serves a few seconds)",
    tag: "Platform",
    public: true,
    responses: {
      200: ok("The database answers (status ok, or degraded on an older schema)", Health),
      503: ok("The database cannot be reached (status down)", Health),
    },
  }),
  async (c) => {
    const answer = await cachedCheck(() => checkDatabase(c.env, (closing) => c.executionCtx.waitUntil(closing)));
    return c.json(answer.body, answer.status);
  },
);

async function checkDatabase(env: AppEnv["Bindings"], waitUntil: (closing: Promise<void>) => void): Promise<Checked> {
  const started = Date.now();
  const expectedTag = expected.tag;
  let conn: ReturnType<typeof openDatabase> | undefined;
  try {
    // The path the Worker's requests take (decision 0023).
    conn = openEdgeDatabase(env);
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
