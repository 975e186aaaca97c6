import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import journal from "../../migrations/meta/_journal.json";
import { MIGRATIONS_DIR } from "../db/migrate";
import { type CheckInput, checkMigrations, formatProblem } from "./check";

const INIT = 'CREATE TABLE "agents" ("id" uuid PRIMARY KEY NOT NULL, "name" text NOT NULL);';
const EXPAND = 'ALTER TABLE "agents" ADD COLUMN "title" text;';
const CONTRACT = 'ALTER TABLE "agents" DROP COLUMN "name";';

/** A folder of migrations in journal order, from [tag, sql] pairs. */
function folder(migrations: [string, string][], extra: Partial<CheckInput> = {}): CheckInput {
  return { dir: "migrations", journal: migrations.map(([tag]) => tag), files: migrations.map(([tag, sql]) => ({ tag, sql })), ...extra };
}

describe("the migration safety check", () => {
  it("the shipped migrations pass as they are, none grandfathered", () => {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((n) => n.endsWith(".sql"))
      .map((n) => ({ tag: n.replace(/\.sql$/, ""), sql: readFileSync(join(MIGRATIONS_DIR, n), "utf8") }));
    const result = checkMigrations({ dir: "migrations", journal: journal.entries.map((e) => e.tag), files });
    expect(result.problems).toEqual([]);
    expect(result.notes.filter((n) => n.includes("grandfathered"))).toEqual([]);
  });

  it("refuses a destructive statement, naming file, line, statement and the expand/contract fix", () => {
    const { problems } = checkMigrations(
      folder([
        ["0000_init", INIT],
        ["0001_drop_name", `-- tidy up\n${EXPAND}\n${CONTRACT}`],
      ]),
    );
    expect(problems).toHaveLength(1);
    const text = formatProblem(problems[0]!);
    expect(text).toContain('migrations/0001_drop_name.sql:3: drops column "name" of "agents"');
    expect(text).toContain(`statement: ${CONTRACT.slice(0, -1)}`);
    expect(text).toContain("-- contract: <expand tag>");
    expect(text).toContain("docs/decisions/0024-safe-migrations.md");
  });

  it("accepts the contract step of an earlier expand step, and says so", () => {
    const result = checkMigrations(
      folder([
        ["0000_init", INIT],
        ["0001_expand", EXPAND],
        ["0002_contract", `-- contract: 0001_expand\n${CONTRACT}`],
      ]),
    );
    expect(result.problems).toEqual([]);
    expect(result.notes).toContain("migrations/0002_contract.sql: contract step of 0001_expand (1 destructive statement(s) accepted)");
  });

  it("reads the contract header among the comments before the first statement only", () => {
    const late = checkMigrations(
      folder([
        ["0000_init", INIT],
        ["0001_expand", EXPAND],
        ["0002_contract", `SELECT 1;\n-- contract: 0001_expand\n${CONTRACT}`],
      ]),
    );
    expect(late.problems).toHaveLength(1);
    const spaced = checkMigrations(
      folder([
        ["0000_init", INIT],
        ["0001_expand", EXPAND],
        ["0002_contract", `-- Drops the old name.\n--   CONTRACT:   0001_expand  \n${CONTRACT}`],
      ]),
    );
    expect(spaced.problems).toEqual([]);
  });

  it("refuses a contract step whose expand step is missing, itself or later", () => {
    const cases: [string, [string, string][], string][] = [
      [
        "0009_nowhere",
        [
          ["0000_init", INIT],
          ["0001_contract", `-- contract: 0009_nowhere\n${CONTRACT}`],
        ],
        "no migration of meta/_journal.json has that tag",
      ],
      [
        "0001_contract",
        [
          ["0000_init", INIT],
          ["0001_contract", `-- contract: 0001_contract\n${CONTRACT}`],
        ],
        "0001_contract is this migration",
      ],
      [
        "0002_expand",
        [
          ["0000_init", INIT],
          ["0001_contract", `-- contract: 0002_expand\n${CONTRACT}`],
          ["0002_expand", EXPAND],
        ],
        "0002_expand comes after it",
      ],
    ];
    for (const [expand, migrations, message] of cases) {
      const { problems } = checkMigrations(folder(migrations));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ file: "migrations/0001_contract.sql", line: 1 });
      expect(problems[0]!.message).toBe(`declares itself the contract step of ${expand}, but ${message}`);
    }
  });

  it("with the releases known, refuses a contract step whose expand step did not ship in a release before it", () => {
    const migrations: [string, string][] = [
      ["0000_init", INIT],
      ["0001_expand", EXPAND],
      ["0002_contract", `-- contract: 0001_expand\n${CONTRACT}`],
    ];
    const v1 = new Set(["0000_init"]);
    const unreleased = checkMigrations(folder(migrations, { releases: [v1] }));
    expect(unreleased.problems.map((p) => p.message)).toEqual([
      "declares itself the contract step of 0001_expand, but 0001_expand is in no release yet (no v* tag holds it), so both would run in the same deploy",
    ]);
    const v2 = new Set(["0000_init", "0001_expand"]);
    const v3 = new Set([...v2, "0002_contract"]);
    expect(checkMigrations(folder(migrations, { releases: [v1, v2] })).problems).toEqual([]);
    expect(checkMigrations(folder(migrations, { releases: [v1, v2, v3] })).problems).toEqual([]);
    // Tagging a release that holds both does not make the expand step shipped before the contract.
    expect(checkMigrations(folder(migrations, { releases: [v1, v3] })).problems.map((p) => p.message)).toEqual([
      "declares itself the contract step of 0001_expand, but 0001_expand first shipped in the same release as this migration, so one deploy ran both",
    ]);
    expect(checkMigrations(folder(migrations)).notes.at(-1)).toContain("release order of contract steps not checked");
  });

  it("accepts a constraint dropped and added again under the same name in the same migration (drizzle-kit's way of changing a check)", () => {
    const replace =
      'ALTER TABLE "runs" DROP CONSTRAINT "runs_kind_check";\nALTER TABLE "runs" ADD CONSTRAINT "runs_kind_check" CHECK ("kind" in (\'a\', \'b\'));';
    expect(
      checkMigrations(
        folder([
          ["0000_init", INIT],
          ["0001_widen", replace],
        ]),
      ).problems,
    ).toEqual([]);
    const dropOnly = checkMigrations(
      folder([
        ["0000_init", INIT],
        ["0001_drop", 'ALTER TABLE "runs" DROP CONSTRAINT "runs_kind_check";'],
      ]),
    );
    expect(dropOnly.problems.map((p) => p.message)).toEqual([
      'drops constraint "runs_kind_check" of "runs": the version still serving during the rollout may fail on it',
    ]);
  });

  it("accepts dropping a plain index, refuses dropping a unique index an earlier migration created unless the migration creates it again", () => {
    const created = 'CREATE INDEX "plain_idx" ON "agents" ("name");\nCREATE UNIQUE INDEX "one_name" ON "agents" ("name");';
    const { problems } = checkMigrations(
      folder([
        ["0000_init", `${INIT}\n${created}`],
        ["0001_drop", 'DROP INDEX "plain_idx";\nDROP INDEX "one_name";'],
      ]),
    );
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [2, 'drops unique index "one_name": the version still serving during the rollout may fail on it'],
    ]);
    const recreated = 'DROP INDEX "one_name";\nCREATE UNIQUE INDEX "one_name" ON "agents" (lower("name"));';
    expect(
      checkMigrations(
        folder([
          ["0000_init", `${INIT}\n${created}`],
          ["0001_recreate", recreated],
        ]),
      ).problems,
    ).toEqual([]);
  });

  it("anything goes on a table the same migration creates", () => {
    const sql = 'CREATE TABLE "drafts" ("a" text);\nALTER TABLE "drafts" ADD COLUMN "b" text NOT NULL;\nALTER TABLE "drafts" RENAME COLUMN "a" TO "c";';
    expect(
      checkMigrations(
        folder([
          ["0000_init", INIT],
          ["0001_drafts", sql],
        ]),
      ).problems,
    ).toEqual([]);
  });

  it("accepts a grandfathered migration only under its own tag, with its reason noted", () => {
    const migrations: [string, string][] = [
      ["0000_init", INIT],
      ["0001_drop_name", CONTRACT],
    ];
    const result = checkMigrations(folder(migrations, { grandfathered: { "0001_drop_name": "shipped before the rule, no version reads name" } }));
    expect(result.problems).toEqual([]);
    expect(result.notes).toContain("migrations/0001_drop_name.sql: grandfathered (shipped before the rule, no version reads name)");
    expect(checkMigrations(folder(migrations, { grandfathered: { "0000_init": "another" } })).problems).toHaveLength(1);
  });

  it("refuses a file the journal does not name, a journal entry without its file, and unreadable SQL", () => {
    const input = folder([
      ["0000_init", INIT],
      ["0001_open", "SELECT 1;\nSELECT 'unterminated"],
    ]);
    input.files.push({ tag: "0002_stray", sql: EXPAND });
    input.journal.push("0003_missing");
    const messages = checkMigrations(input).problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
    expect(messages).toEqual([
      "migrations/0002_stray.sql:1: is not in meta/_journal.json, so the deploy would never apply it",
      "migrations/0001_open.sql:2: cannot be read: unterminated string literal",
      "migrations/0003_missing.sql:1: is named by meta/_journal.json but missing",
    ]);
  });
});
