import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Env } from "../bindings/env";
import { isDatabaseUnavailable, openDatabase } from "../core/db/client";

const config = env as unknown as Env;

/** The connection string with another password. */
function withPassword(password: string): string {
  const url = new URL(config.DATABASE_URL!);
  url.password = password;
  return url.toString();
}

describe("the platform's connections to a SCRAM Postgres (core/db/scram)", () => {
  it("HARDEN-5 / ISSUE-34: twelve connections opened at once all authenticate, and a wrong password next to them is refused", async () => {
    const pools = Array.from({ length: 12 }, () => openDatabase(config, { deadlineMs: 15_000 }));
    const wrong = openDatabase({ ...config, DATABASE_URL: withPassword("not-the-password") }, { deadlineMs: 15_000 });
    try {
      const [refused, ...answers] = await Promise.all([
        wrong.db.execute(sql`select 1 as one`).then(
          () => null,
          (error: unknown) => error,
        ),
        ...pools.map(({ db }) => db.execute(sql`select current_user as who`)),
      ]);
      expect(answers.map((a) => a.rows[0]?.who)).toEqual(Array(12).fill(new URL(config.DATABASE_URL!).username));
      expect(String((refused as Error)?.cause ?? refused)).toMatch(/password authentication failed/);
      expect(isDatabaseUnavailable(refused)).toBe(false);
    } finally {
      await Promise.all([...pools, wrong].map((p) => p.close()));
    }
  });
});
