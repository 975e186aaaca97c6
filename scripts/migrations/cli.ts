/**
 * `npm run migrations:check [-- --dir <folder>]`: refuses a destructive migration that is not
 * the declared contract step of an earlier expand step (part of `npm test`; the rule:
 * docs/decisions/0024-safe-migrations.md). Exits 1 naming each file, line and statement.
 *
 * In the repository's own folder the releases are read from git tags `v*`, so a contract step
 * is refused while its expand step is in no release; elsewhere (or without tags) the check
 * keeps to the journal's order and says so.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkMigrations, formatProblem } from "./check";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OWN_DIR = join(ROOT, "migrations");

/**
 * Tags already shipped before this rule whose destructive statements stay as they are, each
 * with its reason. Empty: 0000..0006 are additive (0005 drops `runs_kind_check` only to add
 * its wider replacement under the same name in the same migration, which the rule accepts).
 */
const GRANDFATHERED: Record<string, string> = {};

function parseDir(args: string[]): string {
  const at = args.indexOf("--dir");
  if (at < 0) return OWN_DIR;
  const value = args[at + 1];
  if (!value) {
    console.error("migrations:check: --dir needs a folder");
    process.exit(2);
  }
  return resolve(value);
}

/** Each release tag's (`v*`) migration tags, or undefined when there are no such tags. */
function releases(): Set<string>[] | undefined {
  const git = (args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  const tags = git(["tag", "--list", "v*"]);
  if (tags.status !== 0) return undefined;
  const names = tags.stdout.split("\n").filter(Boolean);
  if (names.length === 0) return undefined;
  return names.map((tag) => {
    const listed = git(["ls-tree", "--name-only", `${tag}:migrations`]).stdout.split("\n");
    return new Set(listed.filter((f) => f.endsWith(".sql")).map((f) => f.replace(/\.sql$/, "")));
  });
}

const dir = parseDir(process.argv.slice(2));
const journalPath = join(dir, "meta/_journal.json");
if (!existsSync(journalPath)) {
  console.error(`migrations:check: ${journalPath} not found`);
  process.exit(2);
}
const journal = (JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] }).entries.map((e) => e.tag);
const files = readdirSync(dir)
  .filter((n) => /^\d{4}_.+\.sql$/.test(n))
  .sort()
  .map((n) => ({ tag: n.replace(/\.sql$/, ""), sql: readFileSync(join(dir, n), "utf8") }));
const nearby = relative(process.cwd(), dir);
const shown = nearby === "" ? "." : nearby.startsWith("..") ? dir : nearby;
const released = dir === OWN_DIR ? releases() : undefined;
const result = checkMigrations({ dir: shown, journal, files, grandfathered: GRANDFATHERED, ...(released ? { releases: released } : {}) });

for (const note of result.notes) console.log(`migrations:check: ${note}`);
if (result.problems.length > 0) {
  console.error(result.problems.map(formatProblem).join("\n\n"));
  console.error(
    `\nmigrations:check: ${result.problems.length} destructive or unreadable statement(s). The deploy migrates before the new Worker serves and the old version keeps serving during the rollout: ship each change as expand, then contract.`,
  );
  process.exit(1);
}
console.log(`migrations:check: ${journal.length} migrations, each additive or a declared contract step.`);
