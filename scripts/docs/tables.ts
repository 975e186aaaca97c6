/**
 * `npm run docs`: rewrites the generated tables of the docs, each the region between
 * `<!-- generated:<name> -->` and `<!-- /generated -->`: the API's routes (docs/api.md, from
 * docs/openapi.json) and the Worker's settings and bindings (docs/configuration.md, from
 * bindings/env.ts, wrangler.toml, .dev.vars.example and the local stack).
 * `npm run docs -- --check`: writes nothing; exits 1 when a table is stale, a region or a
 * table has no counterpart, a setting has no description, or a relative link of README.md
 * or docs/ points at no file or heading.
 *
 * @example npm run --silent docs             # rewrite the tables
 * @example npm run --silent docs -- --check  # exit 1 when they differ from their sources
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { brokenLinks, generatedTables, refreshPages, staleRegions } from "./generate";
import { exists, ROOT, readPage, readPages, readSources } from "./sources";

const check = process.argv.includes("--check");
const pages = readPages();
const { tables, problems } = generatedTables(readSources());
const { changed, problems: pageProblems } = refreshPages(pages, tables);
problems.push(...pageProblems, ...brokenLinks(pages, exists, readPage));

if (check) {
  for (const [path] of changed) {
    problems.push(`${path}: ${staleRegions(pages.get(path)!, tables).join(", ")} out of date: run npm run docs and commit it`);
  }
} else {
  for (const [path, text] of changed) writeFileSync(join(ROOT, path), text);
  console.log(changed.size ? `docs: rewrote ${[...changed.keys()].join(", ")}` : "docs: the generated tables are up to date");
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`docs: ${problem}`);
  process.exit(1);
}
if (check) console.log(`docs: ${Object.keys(tables).length} generated tables match their sources; the links of ${pages.size} pages resolve`);
