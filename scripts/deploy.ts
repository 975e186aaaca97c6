/**
 * `npm run deploy -- --env production [--url https://agents.example.com]`: applies the
 * pending migrations to the environment's database (DATABASE_URL, exported by the
 * operator), builds the console, runs `wrangler deploy --env <name>`, then checks that
 * `/api/health` of the deployment reports the newest migration.
 *
 * `--only migrate` and `--only check` run one step (CI runs them around Cloudflare's
 * wrangler action).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { experimental_readRawConfig, unstable_readConfig } from "wrangler";
import { MIGRATIONS_DIR } from "./db/migrate";
import { migrateEnvironmentDatabase } from "./deploy/database";
import { parseDeployArgs } from "./deploy/options";
import { type HealthReport, newestMigrationTag, schemaProblem } from "./deploy/schema-check";
import { deployedOrigin, type Route, routeOrigin } from "./deploy/target";
import { ROOT } from "./stack/wrangler";

/** New versions take a few seconds to serve everywhere; the check waits this long for it. */
const HEALTH_WAIT_MS = 90_000;

function fail(message: string, code = 1): never {
  console.error(`deploy: ${message}`);
  process.exit(code);
}

const configPath = join(ROOT, "wrangler.toml");
const { rawConfig } = experimental_readRawConfig({ config: configPath });
const parsed = parseDeployArgs(process.argv.slice(2), Object.keys(rawConfig.env ?? {}));
if (!parsed.ok) fail(parsed.message, 2);
const { env, step } = parsed.options;
const newestTag = newestMigrationTag(readdirSync(MIGRATIONS_DIR));
if (!newestTag) fail(`no migrations in ${MIGRATIONS_DIR}`);

if (step === "all" || step === "migrate") {
  const url = process.env.DATABASE_URL;
  if (!url)
    fail(
      `DATABASE_URL is not set: export the ${env} database's connection string (the same database as the Worker's DATABASE_URL secret of --env ${env}) and run again.`,
      2,
    );
  try {
    await migrateEnvironmentDatabase(url);
  } catch (error) {
    fail((error as Error).message);
  }
  console.log(`Database of ${env} is at ${newestTag}.`);
}

let reported: string | undefined;
if (step === "all") {
  run("console build", "npm", ["run", "--silent", "build"]);
  // The sandbox images copy these bundles (containers/README.md); wrangler builds and pushes the images.
  run("guest build", "npm", ["run", "--silent", "guest:build"]);
  run("terminal build", "npm", ["run", "--silent", "terminal:build"]);
  const outputDir = mkdtempSync(join(tmpdir(), "guilds-deploy-"));
  const outputFile = join(outputDir, "wrangler-output.json");
  try {
    run(`wrangler deploy --env ${env}`, process.execPath, [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--env", env], {
      WRANGLER_OUTPUT_FILE_PATH: outputFile,
    });
    reported = deployedOrigin(readOutput(outputFile));
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

if (step === "all" || step === "check") {
  const config = unstable_readConfig({ config: configPath, env });
  const routes: Route[] = [...(config.routes ?? []), ...(config.route ? [config.route] : [])];
  const origin = parsed.options.url ?? reported ?? routeOrigin(routes);
  if (!origin) fail(`no URL to check for ${env}: pass --url https://<where it answers> (its workers.dev URL or custom domain)`, 2);
  const problem = await waitForExpectedSchema(`${origin}/api/health`, newestTag);
  if (problem) fail(`${origin}/api/health: ${problem}`);
  console.log(`${origin} is healthy at migration ${newestTag}.`);
}

/** Runs a command in the repository with the terminal attached; a failure stops the deploy. */
function run(label: string, command: string, args: string[], extraEnv: Record<string, string> = {}): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, ...extraEnv } });
  if (result.status !== 0)
    fail(`${label} failed (exit ${result.status ?? result.signal}); the database keeps its migrations, the previous version keeps serving.`);
}

/** Wrangler's output file; without one, the origin comes from --url or the environment's route. */
function readOutput(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** Polls the health route until it reports the expected schema; the last problem when it never does. */
async function waitForExpectedSchema(healthUrl: string, tag: string): Promise<string | null> {
  const deadline = Date.now() + HEALTH_WAIT_MS;
  let problem = "no answer";
  for (;;) {
    try {
      const response = await fetch(healthUrl, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
      const text = await response.text();
      try {
        problem = schemaProblem(JSON.parse(text) as HealthReport, tag) ?? "";
        if (!problem) return null;
      } catch {
        problem = `answered ${response.status} without a health report (${text.slice(0, 80).replace(/\s+/g, " ")})`;
      }
    } catch (error) {
      problem = `no answer (${(error as Error).message})`;
    }
    if (Date.now() >= deadline) return problem;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
}
