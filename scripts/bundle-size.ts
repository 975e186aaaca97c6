/**
 * `npm run bundle` (also a step of `npm test`, after the console build): bundles the
 * production Worker as `wrangler deploy --env production` would, without uploading
 * (`--dry-run`), prints its size by major module, raw and gzipped, and its busy startup CPU
 * (median of three `wrangler check startup` runs over that same bundle; method in
 * bundle/startup-cpu.ts), and exits 1 when either is above its budget. Only wrangler's command line is used, so the
 * script keeps working across wrangler releases.
 *
 * Budgets: BUNDLE_BUDGET_KIB gzipped, STARTUP_BUDGET_MS busy CPU, both measured on an idle
 * machine; a loaded one inflates the startup figure (see startup-cpu.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { type Metafile, moduleSizes } from "./bundle/module-sizes";
import { busyStartupMs, type CpuProfile, median } from "./bundle/startup-cpu";
import { ROOT } from "./stack/wrangler";

export const BUNDLE_BUDGET_KIB = 1024;
export const STARTUP_BUDGET_MS = 40;
const STARTUP_RUNS = 3;

const kib = (n: number) => (n / 1024).toFixed(1);

/** Runs wrangler quietly (check startup warns that it is alpha on every run); its output is shown if it fails. */
function wrangler(args: string[]): void {
  const result = spawnSync(process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    // No Docker engine is needed to bundle: the dry run only pipes each Dockerfile to a CLI
    // that answers (one exiting before reading it fails the run with EPIPE).
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_DOCKER_BIN: join(ROOT, "scripts/bundle/no-docker.sh") },
  });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`wrangler ${args.slice(0, 2).join(" ")} failed (exit ${result.status ?? result.signal})`);
  }
}

const work = mkdtempSync(join(tmpdir(), "guilds-bundle-"));
try {
  const outdir = join(work, "out");
  const uploadForm = join(work, "worker.bundle");
  const metafile = join(work, "meta.json");
  wrangler(["deploy", "--dry-run", "--env", "production", "--outdir", outdir, "--outfile", uploadForm, "--metafile", metafile]);

  let raw = 0;
  let gzipped = 0;
  for (const name of readdirSync(outdir, { recursive: true }) as string[]) {
    const path = join(outdir, name);
    // Wrangler also writes a README.md there; only modules are uploaded (maps go separately).
    if (!statSync(path).isFile() || name.endsWith(".map") || name.endsWith(".md")) continue;
    const bytes = readFileSync(path);
    raw += bytes.byteLength;
    gzipped += gzipSync(bytes, { level: 9 }).byteLength;
  }
  const parts = moduleSizes(JSON.parse(readFileSync(metafile, "utf8")) as Metafile);
  console.log("Largest parts of the Worker bundle (raw KiB):");
  for (const [group, bytes] of parts.slice(0, 10)) console.log(`  ${kib(bytes).padStart(8)}  ${group}`);

  const runs: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const profile = join(work, `startup-${i}.cpuprofile`);
    wrangler(["check", "startup", "--env", "production", "--worker", uploadForm, "--outfile", profile]);
    runs.push(busyStartupMs(JSON.parse(readFileSync(profile, "utf8")) as CpuProfile));
  }
  const startup = median(runs);

  const sizeOk = gzipped / 1024 <= BUNDLE_BUDGET_KIB;
  const startupOk = startup <= STARTUP_BUDGET_MS;
  console.log(`Worker bundle: ${kib(raw)} KiB raw, ${kib(gzipped)} KiB gzipped (budget ${BUNDLE_BUDGET_KIB} KiB)${sizeOk ? "" : "  OVER BUDGET"}`);
  console.log(
    `Startup CPU: ${startup.toFixed(1)} ms busy, median of ${runs.map((r) => r.toFixed(1)).join(", ")} (budget ${STARTUP_BUDGET_MS} ms)${startupOk ? "" : "  OVER BUDGET"}`,
  );
  if (!sizeOk || !startupOk) process.exitCode = 1;
} finally {
  if (!process.env.KEEP_BUNDLE) rmSync(work, { recursive: true, force: true });
}
