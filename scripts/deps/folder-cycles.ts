/**
 * The second half of `npm run deps`: reads dependency-cruiser's JSON result on stdin
 * (`depcruise --output-type json … | tsx scripts/deps/folder-cycles.ts`), prints the rules'
 * violations in the shape of dependency-cruiser's own `err` report, then checks what
 * dependency-cruiser can't say per file: that no two folders import each other, directly or
 * round a loop (rule no-folder-cycle, scripts/deps/folder-graph.ts). Exits 1 on any violation
 * of either. One cruise serves both, so the whole check takes a couple of seconds.
 */
import { text } from "node:stream/consumers";
import { type CruisedModule, folderCycles } from "./folder-graph";

interface Violation {
  type: string;
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}

interface CruiseResult {
  modules: CruisedModule[];
  summary: { violations: Violation[]; error: number; warn: number; totalCruised: number; totalDependenciesCruised: number };
}

const input = await text(process.stdin);
if (!input.trim()) {
  console.error("deps: no cruise result on stdin (did depcruise fail?)");
  process.exit(2);
}
const { modules, summary } = JSON.parse(input) as CruiseResult;

for (const { type, from, to, rule, cycle } of summary.violations) {
  // A file cycle is shown whole, as dependency-cruiser shows it: from the file through the loop back to it.
  const target = type === "cycle" && cycle ? ` \n${cycle.map((step) => `      ${step.name}`).join(" →\n")}` : ` ${to}`;
  console.log(`  ${rule.severity} ${rule.name}: ${from} →${target}`);
}
if (summary.violations.length > 0) {
  console.log(`\nx ${summary.violations.length} dependency violations (${summary.error} errors, ${summary.warn} warnings).`);
}
console.log(`${summary.totalCruised} modules, ${summary.totalDependenciesCruised} dependencies cruised.\n`);

const cycles = folderCycles(modules);

for (const cycle of cycles) {
  console.log(`  error no-folder-cycle: ${[...cycle.map((hop) => hop.from), cycle[0]!.from].join(" → ")}`);
  for (const hop of cycle) console.log(`      ${hop.example.from} → ${hop.example.to}`);
  console.log("");
}
if (cycles.length > 0) console.log(`x ${cycles.length} folder cycle${cycles.length === 1 ? "" : "s"}.\n`);
if (summary.error > 0 || cycles.length > 0) process.exit(1);
