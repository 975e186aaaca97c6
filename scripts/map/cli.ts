/**
 * `npm run map`: writes the path sections of docs/architecture.md from scripts/map/paths.ts.
 * `npm run map -- --check`: writes nothing; exits 1 when a path no longer holds in the code
 * (a listed file gone, or no longer reaching the next as listed: scripts/map/walk.ts) or when
 * the written sections are out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, repositoryReader } from "./files";
import { ARCHITECTURE, PATHS } from "./paths";
import { writeSections } from "./render";
import { countsOf } from "./types";
import { walkPath } from "./walk";

const check = process.argv.includes("--check");
const read = repositoryReader();
const problems = PATHS.flatMap((path) => walkPath(path, read));
const target = join(ROOT, ARCHITECTURE);
const doc = readFileSync(target, "utf8");
const { text, missing } = writeSections(doc, PATHS);
for (const id of missing) problems.push(`${ARCHITECTURE} has no <!-- map:${id} --> … <!-- /map:${id} --> markers`);

if (check) {
  if (missing.length === 0 && text !== doc) problems.push(`${ARCHITECTURE}'s path sections are out of date: run npm run map`);
} else if (text !== doc) {
  writeFileSync(target, text);
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`map: ${problem}`);
  process.exit(1);
}
if (!check) {
  const counts = PATHS.map((p) => `${p.id} ${countsOf(p).files} files in ${countsOf(p).folders} folders`).join(", ");
  console.log(`map: ${text === doc ? "up to date" : `wrote ${ARCHITECTURE}`} (${counts})`);
}
