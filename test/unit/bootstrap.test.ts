/**
 * The operator's bootstrap script against a real Postgres: an organisation created with
 * a spend ceiling, and the ceiling of an existing one set and lifted.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organisations } from "../../core/db/schema";
import { migrateDatabase } from "../../scripts/db/migrate";
import { withDatabase } from "../../scripts/stack/operator";
import { type Database, startDatabase } from "../../scripts/stack/postgres";
import { removeStateDir } from "../../scripts/stack/postgres-home";
import { ROOT } from "../../scripts/stack/wrangler";

const exec = promisify(execFile);
let db: Database;
let stateDir: string;

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), "guilds-bootstrap-pg-"));
  db = await startDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, stateDir });
  await migrateDatabase(db.url);
}, 120_000);
afterAll(async () => {
  await db?.stop();
  removeStateDir(stateDir);
});

const bootstrap = (...args: string[]) =>
  exec(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), "scripts/bootstrap.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url },
  });

const ceilingOf = (id: string) => withDatabase(db.url, async (d) => (await d.select().from(organisations).where(eq(organisations.id, id)))[0]?.spendCeilingUsd);

describe("bootstrap: the operator's spend ceiling", () => {
  it("USAGE-005: --spend-ceiling sets a new organisation's ceiling; --org sets and lifts an existing one's", async () => {
    const created = JSON.parse((await bootstrap("--json", "--name", "Capped", "--spend-ceiling", "100")).stdout);
    expect(created).toMatchObject({ organisation_id: expect.any(String), token: expect.stringMatching(/^gld_/), spend_ceiling_usd: "100.000000" });
    expect(await ceilingOf(created.organisation_id)).toBe("100.000000");

    const set = await bootstrap("--org", created.organisation_id, "--spend-ceiling", "2.5");
    expect(set.stdout).toContain("spend ceiling 2.5 USD a month");
    expect(await ceilingOf(created.organisation_id)).toBe("2.500000");
    await bootstrap("--org", created.organisation_id, "--spend-ceiling", "none");
    expect(await ceilingOf(created.organisation_id)).toBeNull();
  }, 60_000);

  it("HARDEN-4: a bad amount, an unknown organisation or a missing amount is refused with a message and no change", async () => {
    const plain = JSON.parse((await bootstrap("--json")).stdout);
    expect(Object.keys(plain).sort()).toEqual(["organisation_id", "token"]);
    expect(await ceilingOf(plain.organisation_id)).toBeNull();
    await expect(bootstrap("--org", plain.organisation_id, "--spend-ceiling=-5")).rejects.toMatchObject({
      stderr: expect.stringContaining("--spend-ceiling must be"),
    });
    await expect(bootstrap("--org", crypto.randomUUID(), "--spend-ceiling", "5")).rejects.toMatchObject({ stderr: expect.stringContaining("No organisation") });
    await expect(bootstrap("--org", plain.organisation_id)).rejects.toMatchObject({ stderr: expect.stringContaining("--org needs --spend-ceiling") });
    expect(await ceilingOf(plain.organisation_id)).toBeNull();
  }, 60_000);
});
