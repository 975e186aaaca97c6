import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../bindings/env";
import { app } from "./app";

/** The real app with its database replaced by one that cannot be used. */
async function withDatabase(bindings: Partial<Env>, path: string) {
  const ctx = createExecutionContext();
  const headers = { authorization: `Bearer gld_${crypto.randomUUID().replaceAll("-", "")}` };
  const response = await app.fetch(new Request(`http://api.test${path}`, { headers }), { ...(env as unknown as Env), ...bindings }, ctx);
  const json = (await response.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: response.status, headers: response.headers, json };
}

describe("HARDEN-2: the API when the database cannot be used", () => {
  // The Worker's statements go over the HTTP query path (decision 0023): the database is out of
  // reach when that endpoint refuses the connection; the pool path reaches Postgres directly.
  for (const [path, bindings] of [
    ["HTTP query path", { NEON_WS_PROXY: "127.0.0.1:1/unreachable" }],
    ["pool path", { DATABASE_URL: "postgres://u:p@127.0.0.1:1/db", DATABASE_QUERY_PATH: "pool" }],
  ] as const) {
    it(`HARDEN-2: a refused connection (${path}) answers 503 database.unavailable with Retry-After, not 500`, async () => {
      const answer = await withDatabase(bindings, "/api/guilds");
      expect(answer.status).toBe(503);
      expect(answer.json.error).toMatchObject({ code: "database.unavailable", details: { retry_after_s: expect.any(Number) } });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(answer.json)).not.toContain("127.0.0.1");
    });
  }

  it("HARDEN-2: a database that is not configured answers the same", async () => {
    const answer = await withDatabase({ DATABASE_URL: undefined }, "/api/guilds");
    expect(answer.status).toBe(503);
    expect(answer.json.error.code).toBe("database.unavailable");
    expect(answer.headers.get("retry-after")).toBeTruthy();
  });
});
