import { describe, expect, it } from "vitest";
import { SqlScanError, scanSql } from "./scan";

const words = (sql: string) => scanSql(sql).statements.map((s) => s.tokens.filter((t) => t.kind === "word").map((t) => t.upper));

describe("the migration SQL scanner", () => {
  it("splits at top-level semicolons and keeps each statement's first line", () => {
    const scan = scanSql('ALTER TABLE "a" ADD COLUMN "b" text;--> statement-breakpoint\n\nCREATE INDEX "i" ON "a" ("b");');
    expect(scan.statements.map((s) => [s.line, s.text])).toEqual([
      [1, 'ALTER TABLE "a" ADD COLUMN "b" text'],
      [3, 'CREATE INDEX "i" ON "a" ("b")'],
    ]);
    expect(scan.comments.map((c) => c.text)).toEqual(["> statement-breakpoint"]);
  });

  it("ignores semicolons and keywords inside line and nested block comments", () => {
    expect(words("-- DROP TABLE x;\nSELECT 1 /* DROP TABLE y; /* nested; */ still; */ ; SELECT 2")).toEqual([["SELECT"], ["SELECT"]]);
  });

  it("reads string literals, doubled quotes and E'' escapes as values, not keywords", () => {
    const scan = scanSql("UPDATE t SET a = 'it''s; DROP TABLE x', b = E'back\\'slash; DROP' WHERE c = 1");
    expect(scan.statements).toHaveLength(1);
    expect(scan.statements[0]!.tokens.filter((t) => t.kind === "string").map((t) => t.text)).toEqual(["it's; DROP TABLE x", "back\\'slash; DROP"]);
  });

  it("keeps quoted identifiers' case and folds words to upper case for comparison", () => {
    const [stmt] = scanSql('alter  TABLE\n\t"Agents" drop "Col;umn"').statements;
    expect(stmt!.tokens.map((t) => [t.kind, t.upper])).toEqual([
      ["word", "ALTER"],
      ["word", "TABLE"],
      ["ident", "Agents"],
      ["word", "DROP"],
      ["ident", "Col;umn"],
    ]);
  });

  it("reads dollar-quoted bodies whole, with or without a tag, and knows the body's first line", () => {
    const sql = "CREATE FUNCTION f() RETURNS void AS $body$\nBEGIN\n  DROP TABLE x; -- $$ inside\nEND;\n$body$ LANGUAGE plpgsql;\nDO $$ BEGIN NULL; END $$;";
    const scan = scanSql(sql);
    expect(scan.statements).toHaveLength(2);
    const body = scan.statements[0]!.tokens.find((t) => t.kind === "dollar")!;
    expect(body.text).toContain("DROP TABLE x; -- $$ inside");
    expect(body.valueLine).toBe(1);
    expect(scan.statements[1]!.line).toBe(6);
  });

  it("does not take a positional parameter or an identifier's dollar for a dollar quote", () => {
    expect(words("SELECT $1; SELECT a$b$ FROM t")).toEqual([["SELECT"], ["SELECT", "A$B$", "FROM", "T"]]);
  });

  it("counts lines through comments, literals and bodies", () => {
    const scan = scanSql("/* one\ntwo */ SELECT 'a\nb';\n$$x\ny$$;\nDROP TABLE t");
    expect(scan.statements.map((s) => s.line)).toEqual([2, 4, 6]);
  });

  it("refuses unterminated comments, literals, identifiers and bodies, naming the line", () => {
    for (const sql of ["SELECT 1;\n/* open", "SELECT 1;\nSELECT 'open", 'SELECT 1;\nSELECT "open', "SELECT 1;\nDO $x$ BEGIN END $y$"]) {
      expect(() => scanSql(sql)).toThrow(SqlScanError);
      try {
        scanSql(sql);
      } catch (error) {
        expect((error as SqlScanError).line).toBe(2);
      }
    }
  });
});
