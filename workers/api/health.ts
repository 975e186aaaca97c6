import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import journal from "../../migrations/meta/_journal.json";
import { openDatabase } from "../../core/db/client";
import type { AppEnv } from "../context";
import type { RouteDoc } from "../openapi";

/** The schema version this build expects: the newest migration it ships. */
const expected = journal.entries.at(-1)!;

export const Health = z.object({
  status: z.enum(["ok", "degraded", "down"]),
  database: z.object({ reachable: z.boolean(), latency_ms: z.number().nullable(), error: z.string().optional() }),
  schema: z.object({
    applied: z.int().nullable(),
    version: z.string().nullable(),
    expected: z.string(),
    up_to_date: z.boolean(),
  }),
});

/**
 * `GET /api/health` (no auth): whether Postgres answers and which migration it
 * is at. 200 when the database is reachable, 503 when not; "degraded" means the
 * database runs an older schema than this build expects.
 */
export const healthRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const started = Date.now();
  const expectedTag = expected.tag;
  let conn: ReturnType<typeof openDatabase> | undefined;
  try {
    conn = openDatabase(c.env);
    const applied = await conn.db.execute<{ n: number; latest: string | null }>(sql`
      select count(*)::int as n, max(created_at)::text as latest from drizzle.__drizzle_migrations`);
    const row = applied.rows[0];
    const latest = journal.entries.find((e) => String(e.when) === row?.latest);
    const upToDate = latest?.idx === expected.idx;
    return c.json({
      status: upToDate ? "ok" : "degraded",
      database: { reachable: true, latency_ms: Date.now() - started },
      schema: { applied: row?.n ?? 0, version: latest?.tag ?? null, expected: expectedTag, up_to_date: upToDate },
    });
  } catch (error) {
    return c.json({
      status: "down",
      database: { reachable: false, latency_ms: null, error: describe(error) },
      schema: { applied: null, version: null, expected: expectedTag, up_to_date: false },
    }, 503);
  } finally {
    if (conn) c.executionCtx.waitUntil(conn.close());
  }
});

/** A short reason without connection strings (which carry the password). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/postgres(ql)?:\/\/\S+/g, "postgres://…").slice(0, 200);
}

export const healthDocs: RouteDoc[] = [
  { method: "get", path: "/api/health", summary: "Database reachability and schema version", tag: "Platform", response: Health, auth: false },
];
