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
  it("HARDEN-2: a refused connection answers 503 database.unavailable with Retry-After, not 500", async () => {
    const answer = await withDatabase({ DATABASE_URL: "postgres://u:p@127.0.0.1:1/db" }, "/api/guilds");
    expect(answer.status).toBe(503);
    expect(answer.json.error).toMatchObject({ code: "database.unavailable", details: { retry_after_s: expect.any(Number) } });
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(answer.json)).not.toContain("127.0.0.1");
  });

  it("HARDEN-2: a database that is not configured answers the same", async () => {
    const answer = await withDatabase({ DATABASE_URL: undefined }, "/api/guilds");
    expect(answer.status).toBe(503);
    expect(answer.json.error.code).toBe("database.unavailable");
    expect(answer.headers.get("retry-after")).toBeTruthy();
  });
});
