import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import journal from "../../migrations/meta/_journal.json";
import { MIGRATIONS_DIR } from "../db/migrate";
import { newestMigrationTag, schemaProblem } from "./schema-check";

const healthy = (tag: string) => ({ status: "ok", database: { reachable: true }, schema: { version: tag, expected: tag } });

describe("ENVIRONMENTS: the schema a deployment must report", () => {
  it("ENVIRONMENTS: the newest migration is the highest-numbered SQL file, the one the Worker expects", () => {
    expect(newestMigrationTag(["0010_later.sql", "0002_hardening.sql", "meta", "0009_x.sql.bak"])).toBe("0010_later");
    expect(newestMigrationTag(["meta"])).toBeUndefined();
    // The Worker's health route expects the journal's last entry: both must name the same migration.
    expect(newestMigrationTag(readdirSync(MIGRATIONS_DIR))).toBe(journal.entries.at(-1)!.tag);
  });

  it("ENVIRONMENTS: a reachable database at the newest migration, served by a build that expects it, passes", () => {
    expect(schemaProblem(healthy("0002_hardening"), "0002_hardening")).toBeNull();
  });

  it("ENVIRONMENTS: a database behind the newest migration names both migrations", () => {
    const problem = schemaProblem(
      { ...healthy("0002_hardening"), status: "degraded", schema: { version: "0001_group_chat", expected: "0002_hardening" } },
      "0002_hardening",
    );
    expect(problem).toContain("0001_group_chat");
    expect(problem).toContain("expected 0002_hardening");
  });

  it("ENVIRONMENTS: an older Worker still serving is not taken for the new one", () => {
    const problem = schemaProblem({ ...healthy("0002_hardening"), schema: { version: "0002_hardening", expected: "0001_group_chat" } }, "0002_hardening");
    expect(problem).toMatch(/built for migration 0001_group_chat/);
  });

  it("ENVIRONMENTS: an unreachable database or a missing report is a problem, with the reason", () => {
    expect(schemaProblem({ status: "down", database: { reachable: false, error: "connection refused" } }, "0002_hardening")).toMatch(
      /cannot reach its database \(connection refused\)/,
    );
    expect(schemaProblem({}, "0002_hardening")).toMatch(/cannot reach its database/);
    expect(schemaProblem({ ...healthy("0002_hardening"), schema: { version: null, expected: "0002_hardening" } }, "0002_hardening")).toMatch(
      /\(none this build knows\)/,
    );
  });
});
