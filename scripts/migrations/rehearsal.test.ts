/**
 * Rehearsal of `npm run migrations:check` (the step of `npm test`) on a copy of the real
 * migrations folder: a destructive migration without its expand step fails it, the same change
 * as an expand migration and a later contract migration passes.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR } from "../db/migrate";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), "migrations-rehearsal-")), "migrations");
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
});
afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

/** Adds a migration as drizzle-kit would: its SQL file and its journal entry. */
function addMigration(tag: string, sql: string): void {
  writeFileSync(join(dir, `${tag}.sql`), sql);
  const path = join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(path, "utf8")) as { entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[] };
  const last = journal.entries.at(-1)!;
  journal.entries.push({ idx: last.idx + 1, version: last.version, when: last.when + 1000, tag, breakpoints: true });
  writeFileSync(path, JSON.stringify(journal, null, 2));
}

function check() {
  const result = spawnSync(join(ROOT, "node_modules/.bin/tsx"), ["scripts/migrations/cli.ts", "--dir", dir], { cwd: ROOT, encoding: "utf8" });
  return { status: result.status, out: result.stdout + result.stderr };
}

describe("rehearsal: the migration check on a copy of migrations/", () => {
  it("the copy as shipped passes", () => {
    const { status, out } = check();
    expect(status, out).toBe(0);
    expect(out).toContain("each additive or a declared contract step");
  });

  it("a destructive migration without its expand step fails, naming the file, line and statement", () => {
    addMigration(
      "0007_agent_title",
      'ALTER TABLE "agents" RENAME COLUMN "name" TO "title";--> statement-breakpoint\nALTER TABLE "agents" ALTER COLUMN "model" SET NOT NULL;',
    );
    const { status, out } = check();
    expect(status).toBe(1);
    expect(out).toContain('0007_agent_title.sql:1: renames column "name" of "agents" to "title"');
    expect(out).toContain('statement: ALTER TABLE "agents" RENAME COLUMN "name" TO "title"');
    expect(out).toContain('0007_agent_title.sql:2: makes column "model" of "agents" NOT NULL');
    expect(out).toContain("2 destructive or unreadable statement(s)");
  });

  it("a contract step naming an expand step that does not exist fails", () => {
    addMigration("0007_drop_name", '-- contract: 0007_add_title\nALTER TABLE "agents" DROP COLUMN "name";');
    const { status, out } = check();
    expect(status).toBe(1);
    expect(out).toContain("0007_drop_name.sql:1: declares itself the contract step of 0007_add_title, but no migration of meta/_journal.json has that tag");
  });

  it("the same rename as expand, then contract in a later migration, passes", () => {
    addMigration(
      "0007_agent_title_expand",
      'ALTER TABLE "agents" ADD COLUMN "title" text;--> statement-breakpoint\nUPDATE "agents" SET "title" = "name" WHERE "title" IS NULL;',
    );
    addMigration(
      "0008_agent_title_contract",
      '-- contract: 0007_agent_title_expand\n-- Every serving version reads and writes "title" since 0007 shipped.\nALTER TABLE "agents" ALTER COLUMN "title" SET NOT NULL;--> statement-breakpoint\nALTER TABLE "agents" DROP COLUMN "name";',
    );
    const { status, out } = check();
    expect(status, out).toBe(0);
    expect(out).toContain("0008_agent_title_contract.sql: contract step of 0007_agent_title_expand (2 destructive statement(s) accepted)");
  });
});
