/**
 * `npm run requirements`: writes docs/requirements.md, which test names which requirement.
 * `npm run requirements -- --check`: writes nothing; exits 1 when a test title names an ID
 * the requirement list does not have, when a requirement of any section has neither
 * a test nor a reason, or when docs/requirements.md (or its copy of the list) is out of date.
 *
 * The refresh reads the list from ../shared/spec/REQUIREMENTS.md when that exists (and copies
 * it to docs/spec/REQUIREMENTS.md), else from the committed copy; `REQUIREMENTS_LIST=path`
 * names another source list. The check reads the committed copy only, so whatever lies
 * beside a clone cannot fail its tests.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseRequirements, sectionsOf, type TestTitle, titlesInSource, unknownIds } from "./requirements/coverage";
import { type PendingReasons, renderCoverage } from "./requirements/render";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SHARED_LIST = process.env.REQUIREMENTS_LIST ?? join(ROOT, "../shared/spec/REQUIREMENTS.md");
const LIST_COPY = join(ROOT, "docs/spec/REQUIREMENTS.md");
const PENDING = join(ROOT, "docs/requirements-pending.json");
const OUTPUT = join(ROOT, "docs/requirements.md");
const SKIPPED_DIRS = new Set(["node_modules", "dist", "test-artifacts"]);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name)) return [];
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith(".test.ts") ? [path] : [];
    });
}

const readIfExists = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

const check = process.argv.includes("--check");
const list = (check ? undefined : readIfExists(SHARED_LIST)) ?? readIfExists(LIST_COPY);
if (list === undefined) {
  console.error(`requirements: no requirement list at ${check ? "" : `${relative(ROOT, SHARED_LIST)} or `}${relative(ROOT, LIST_COPY)}`);
  process.exit(1);
}
const requirements = parseRequirements(list);
const sections = sectionsOf(requirements);
const titles: TestTitle[] = testFiles(ROOT).flatMap((path) => titlesInSource(relative(ROOT, path), readFileSync(path, "utf8"), sections));
const pending = JSON.parse(readFileSync(PENDING, "utf8")) as PendingReasons;
const coverage = renderCoverage(requirements, titles, pending);

const problems: string[] = [];
for (const { id, test } of unknownIds(requirements, titles)) {
  problems.push(`${test.file}:${test.line}: "${test.title}" names ${id}, which the requirement list does not have`);
}
for (const id of coverage.unexplained) {
  problems.push(`${id} has no test and no reason in ${relative(ROOT, PENDING)}`);
}
for (const id of coverage.staleReasons) {
  console.warn(`requirements: ${relative(ROOT, PENDING)} keeps a reason for ${id}, which has a test now or is not in the list`);
}

if (check) {
  if (readIfExists(OUTPUT) !== coverage.markdown) problems.push(`${relative(ROOT, OUTPUT)} is out of date: run npm run requirements`);
} else {
  mkdirSync(dirname(LIST_COPY), { recursive: true });
  writeFileSync(LIST_COPY, list);
  writeFileSync(OUTPUT, coverage.markdown);
  console.log(`requirements: wrote ${relative(ROOT, OUTPUT)} (${titles.filter((t) => t.ids.length > 0).length} titles name requirements)`);
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`requirements: ${problem}`);
  process.exit(1);
}
