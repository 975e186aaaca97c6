/**
 * `npm run deploy -- --env production [--url https://agents.example.com] [--steps 10,50,100]`:
 * applies the pending migrations to the environment's database (DATABASE_URL, exported by the
 * operator), builds the console and the sandbox bundles, uploads a new version with
 * `wrangler versions upload`, rolls it out in steps with `wrangler versions deploy` and ends
 * with `wrangler deploy` at 100% (which builds and pushes both sandbox images with Docker and
 * buildx), checking /api/health and a smoke run against the new version after each step
 * (scripts/deploy/rollout.ts). A failed check puts the previous version back at 100% and exits 1.
 *
 * `--only migrate`, `--only rollout` (no migration, no build) and `--only check` (health of what
 * serves now) run one part. WRANGLER_BIN runs another program instead of wrangler (the
 * rehearsal's stand-in, scripts/deploy/rehearse.ts).
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { unstable_readConfig } from "wrangler";
import { MIGRATIONS_DIR } from "./db/migrate";
import { healthProblem } from "./deploy/checks";
import { readCommandLine, WRANGLER_TOML } from "./deploy/command-line";
import { migrateEnvironmentDatabase } from "./deploy/database";
import { locationHint, neonRegion } from "./deploy/location-hint";
import { parseDeployArgs } from "./deploy/options";
import { defaultSteps, rollout } from "./deploy/rollout";
import { newestMigrationTag } from "./deploy/schema-check";
import { type Route, routeOrigin } from "./deploy/target";
import { wranglerPlatform } from "./deploy/wrangler-platform";
import { ROOT } from "./stack/wrangler";

/** New versions take a few seconds to serve everywhere; the health check waits this long for it. */
const HEALTH = { waitMs: 90_000, pollMs: 3_000 };
/** A smoke run is one short generation of the canary agent. */
const SMOKE = { waitMs: 180_000, pollMs: 2_000 };
const DEFAULT_SOAK_S = 30;

function fail(message: string, code = 1): never {
  console.error(`deploy: ${message}`);
  process.exit(code);
}

const parsed = readCommandLine(parseDeployArgs);
if (!parsed.ok) fail(parsed.message, 2);
const { env, step } = parsed.options;
const newestTag = newestMigrationTag(readdirSync(MIGRATIONS_DIR));
if (!newestTag) fail(`no migrations in ${MIGRATIONS_DIR}`);
const config = unstable_readConfig({ config: WRANGLER_TOML, env });
const routes: Route[] = [...(config.routes ?? []), ...(config.route ? [config.route] : [])];
const configuredOrigin = parsed.options.url ?? routeOrigin(routes);

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

if (step === "all") {
  run("console build", "npm", ["run", "--silent", "build"]);
  // The sandbox images copy these bundles (containers/README.md); `wrangler deploy` builds and pushes the images.
  run("guest build", "npm", ["run", "--silent", "guest:build"]);
  run("terminal build", "npm", ["run", "--silent", "terminal:build"]);
}

if (step === "all" || step === "rollout") {
  const vars: Record<string, string> = {};
  const hint = databaseLocationHint();
  if (hint) vars.DATABASE_LOCATION_HINT = hint;
  const steps = parsed.options.steps ?? defaultSteps(env);
  const token = process.env.SMOKE_TOKEN;
  const agentId = process.env.SMOKE_AGENT_ID;
  const platform = wranglerPlatform({
    env,
    workerName: config.name as string,
    vars,
    ...(parsed.options.message ? { message: parsed.options.message } : {}),
    ...(configuredOrigin ? { origin: configuredOrigin } : {}),
    tag: newestTag,
    ...(token && agentId ? { smoke: { token, agentId } } : {}),
    soakMs: (parsed.options.soakS ?? DEFAULT_SOAK_S) * 1000,
    timing: { health: HEALTH, smoke: SMOKE },
    log: (line) => console.log(line),
  });
  console.log(`Rolling out ${config.name} in steps of ${steps.map((s) => `${s}%`).join(", ")}.`);
  const result = await rollout(platform, steps);
  if (!result.ok) {
    if (result.rolledBackTo) fail(`${result.problem}. Rolled back: ${result.rolledBackTo} serves 100% again; the database keeps its migrations.`);
    if (result.rollbackProblem) fail(`${result.problem}. The rollback failed too (${result.rollbackProblem}): run \`npm run rollback -- --env ${env}\`.`);
    fail(`${result.problem}.`);
  }
  console.log(`${platform.origin() ?? config.name} serves version ${result.versionId} at 100%, healthy at migration ${newestTag}.`);
}

if (step === "check") {
  if (!configuredOrigin) fail(`no URL to check for ${env}: pass --url https://<where it answers> (its workers.dev URL or custom domain)`, 2);
  const problem = await healthProblem(configuredOrigin, newestTag, {}, HEALTH);
  if (problem) fail(`${configuredOrigin}/api/health: ${problem}`);
  console.log(`${configuredOrigin} is healthy at migration ${newestTag}.`);
}

/**
 * Where the Worker creates its agent and guild objects: DATABASE_LOCATION_HINT when exported,
 * else the Cloudflare region nearest the Neon host of DATABASE_URL (scripts/deploy/location-hint.ts).
 */
function databaseLocationHint(): string | undefined {
  const given = process.env.DATABASE_LOCATION_HINT;
  if (given) return given;
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log("DATABASE_URL is not set: no DATABASE_LOCATION_HINT (objects start near their first caller).");
    return undefined;
  }
  const region = neonRegion(url);
  const hint = locationHint(url);
  if (hint) console.log(`DATABASE_LOCATION_HINT=${hint} (the database is in ${region?.id}).`);
  else
    console.log(
      `No DATABASE_LOCATION_HINT: ${region ? `no hint known for ${region.id}` : "the database is not on Neon"}; export DATABASE_LOCATION_HINT to set one.`,
    );
  return hint;
}

/** Runs a command in the repository with the terminal attached; a failure stops the deploy. */
function run(label: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0)
    fail(`${label} failed (exit ${result.status ?? result.signal}); the database keeps its migrations, the previous version keeps serving.`);
}
