import { describe, expect, it } from "vitest";
import { classify } from "./rules";
import { scanSql } from "./scan";

/** The rules a SQL text breaks, statement by statement ("drop-index" etc. for the conditional effects). */
const rules = (sql: string) =>
  scanSql(sql)
    .statements.flatMap(classify)
    .filter((e) => e.type === "destructive" || e.type === "drop-index" || e.type === "drop-constraint")
    .map((e) => (e.type === "destructive" ? e.rule : e.type));

describe("what a migration statement does to the version still serving", () => {
  it.each([
    'ALTER TABLE "agents" ADD COLUMN "group_post" boolean DEFAULT true NOT NULL',
    'ALTER TABLE "api_tokens" ADD COLUMN "expires_at" timestamp (3) with time zone',
    'ALTER TABLE "t" ADD COLUMN "n" bigserial NOT NULL',
    'ALTER TABLE "t" ADD COLUMN "n" integer GENERATED ALWAYS AS IDENTITY NOT NULL',
    'ALTER TABLE "t" ADD "n" integer NOT NULL DEFAULT 0',
    'ALTER TABLE "t" ADD CONSTRAINT "t_fk" FOREIGN KEY ("a") REFERENCES "public"."u"("id") ON DELETE cascade ON UPDATE no action',
    'ALTER TABLE "t" ADD PRIMARY KEY ("id")',
    'ALTER TABLE "t" ALTER COLUMN "a" DROP NOT NULL',
    'ALTER TABLE "t" ALTER COLUMN "a" SET DEFAULT 0',
    'ALTER TABLE "t" RENAME CONSTRAINT "a" TO "b"',
    'CREATE TABLE "t" ("id" uuid PRIMARY KEY NOT NULL, "name" text NOT NULL)',
    'CREATE UNIQUE INDEX "t_one" ON "t" USING btree ("a") WHERE "t"."b" IS NULL',
    'ALTER INDEX "a" RENAME TO "b"',
    "ALTER TYPE \"kind\" ADD VALUE 'task'",
    'UPDATE "github_connections" SET "disconnected_at" = now() WHERE "disconnected_at" IS NULL',
    'DELETE FROM "sessions" WHERE "expires_at" < now() - interval \'30 days\'',
    'DELETE FROM "a" USING "b" WHERE "a"."id" = "b"."id"',
    "INSERT INTO t (a) VALUES ('DROP TABLE t; TRUNCATE t')",
    "CREATE FUNCTION f() RETURNS void AS $$ BEGIN DROP TABLE x; END $$ LANGUAGE plpgsql",
    "COMMENT ON COLUMN t.a IS 'ALTER TABLE t DROP COLUMN a'",
    'DO $$ BEGIN ALTER TABLE "t" ADD CONSTRAINT "c" FOREIGN KEY ("a") REFERENCES "u"("id"); EXCEPTION WHEN duplicate_object THEN null; END $$',
  ])("additive: %s", (sql) => {
    expect(rules(sql)).toEqual([]);
  });

  it.each([
    ['DROP TABLE "agents"', "drop-object"],
    ["drop table if exists public.agents cascade", "drop-object"],
    ['DROP VIEW "v"', "drop-object"],
    ['DROP MATERIALIZED VIEW "v"', "drop-object"],
    ['DROP TYPE "kind"', "drop-object"],
    ["DROP SEQUENCE s", "drop-object"],
    ["DROP FUNCTION f()", "drop-object"],
    ["DROP SCHEMA app", "drop-object"],
    ['ALTER TABLE "agents" DROP COLUMN "name"', "drop-column"],
    ["alter table agents drop name", "drop-column"],
    ['ALTER TABLE ONLY "agents" DROP COLUMN IF EXISTS "name" CASCADE', "drop-column"],
    ['ALTER TABLE "agents" RENAME COLUMN "name" TO "title"', "rename"],
    ['ALTER TABLE "agents" RENAME "name" TO "title"', "rename"],
    ['ALTER TABLE "agents" RENAME TO "bots"', "rename"],
    ['ALTER TABLE "agents" SET SCHEMA "archive"', "set-schema"],
    ['ALTER VIEW "v" RENAME TO "w"', "rename"],
    ["ALTER TYPE \"kind\" RENAME VALUE 'a' TO 'b'", "rename"],
    ['ALTER TABLE "t" ALTER COLUMN "a" SET DATA TYPE bigint', "type-change"],
    ['ALTER TABLE "t" ALTER "a" TYPE text USING "a"::text', "type-change"],
    ['ALTER TABLE "t" ADD COLUMN "a" text NOT NULL', "not-null-without-default"],
    ['ALTER TABLE "t" ADD "a" uuid PRIMARY KEY', "not-null-without-default"],
    ['ALTER TABLE "t" ALTER COLUMN "a" SET NOT NULL', "set-not-null"],
    ['ALTER TABLE "t" ALTER COLUMN "a" DROP DEFAULT', "drop-default"],
    ['ALTER TABLE "t" ALTER COLUMN "a" DROP IDENTITY IF EXISTS', "drop-identity"],
    ['TRUNCATE "runs"', "truncate"],
    ['truncate table "runs" cascade', "truncate"],
    ['DELETE FROM "runs"', "delete-all"],
    ['DELETE FROM ONLY "runs" RETURNING (SELECT 1 WHERE true)', "delete-all"],
    ['ALTER TABLE "t" ADD COLUMN "a" text CHECK ("a" IS NOT NULL)', "not-null-without-default"],
    ['ALTER TABLE "t" DROP CONSTRAINT "t_check"', "drop-constraint"],
    ['DROP INDEX "t_idx"', "drop-index"],
    ['DROP INDEX CONCURRENTLY IF EXISTS "public"."t_idx"', "drop-index"],
    ["DO $$ BEGIN ALTER TABLE t DROP COLUMN a; END $$", "drop-column"],
    ["DO $$ BEGIN IF true THEN TRUNCATE t; END IF; END $$", "truncate"],
    ["DO $$ BEGIN EXECUTE format('DROP TABLE %I', 't'); END $$", "dynamic-sql"],
  ])("refused or conditional: %s", (sql, rule) => {
    expect(rules(sql)).toEqual([rule]);
  });

  it("checks every action of a multi-action ALTER TABLE, each at its own line", () => {
    const effects = scanSql('ALTER TABLE "t"\n  ADD COLUMN "a" text,\n  DROP COLUMN "b",\n  ALTER COLUMN "c" TYPE bigint').statements.flatMap(classify);
    expect(effects.map((e) => (e.type === "destructive" ? [e.rule, e.line, e.what] : e.type))).toEqual([
      ["drop-column", 3, 'drops column "b" of "t"'],
      ["type-change", 4, 'changes the type of column "c" of "t"'],
    ]);
  });

  it("commas inside a column's definition do not split the actions", () => {
    expect(rules('ALTER TABLE "t" ADD COLUMN "a" numeric(14, 6) NOT NULL, ADD COLUMN "b" text')).toEqual(["not-null-without-default"]);
  });

  it("names the subject of the statement, folding unquoted names as PostgreSQL does", () => {
    const [effect] = scanSql('ALTER TABLE Public.Agents RENAME COLUMN Name TO "Title"').statements.flatMap(classify);
    expect(effect).toMatchObject({ type: "destructive", table: "agents", what: 'renames column "name" of "agents" to "Title"' });
  });

  it("reports a DO block's statements at their own lines", () => {
    const [effect] = scanSql('SELECT 1;\nDO $$\nBEGIN\n  ALTER TABLE "t" DROP COLUMN "a";\nEND $$;').statements.flatMap(classify);
    expect(effect).toMatchObject({ rule: "drop-column", line: 4, statement: 'ALTER TABLE "t" DROP COLUMN "a"' });
  });

  it("records what the migration creates, for the checks across statements", () => {
    const effects = scanSql(
      'CREATE TABLE IF NOT EXISTS "public"."t" ("id" int);CREATE UNIQUE INDEX CONCURRENTLY "u" ON "t" ("id");ALTER TABLE "t" ADD CONSTRAINT "c" CHECK (true)',
    ).statements.flatMap(classify);
    expect(effects).toEqual([
      { type: "create-table", name: "t" },
      { type: "create-unique-index", name: "u" },
      { type: "add-constraint", table: "t", name: "c" },
    ]);
  });
});
