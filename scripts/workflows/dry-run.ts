/**
 * `npm run workflows:dry-run [-- --job ci/images --job deploy/production] [--shard 2]`: carries
 * out each job of .github/workflows/ here, step by step, with the same `run:` commands in a
 * fresh clone of the committed HEAD, so a broken command shows before it reaches GitHub.
 * No `act` and no Cloudflare account: what the runner or the account would provide is stood in.
 *
 * - `actions/checkout`: the clone, at HEAD; a production job gets a tag `v0.0.0-dry-run` on it.
 * - `actions/setup-node`: the project's Node (the `node` devDependency) first on PATH, checked
 *   against `node-version`.
 * - `docker/setup-buildx-action`: the engine's buildx, or, where it has none, a `docker` on PATH
 *   that builds `buildx build` with the classic builder.
 * - secrets: DATABASE_URL is a Postgres started here (the migrations really run); the
 *   Cloudflare token and account are placeholders; wrangler is the rehearsal's stand-in
 *   (WRANGLER_BIN) and DEPLOY_URL its HTTP stand-in, where one good version serves at first.
 *   Each step gets the `env:` of its workflow, job and step, and no secret from elsewhere.
 *
 * Jobs run one after another (`git clean` between them, as each job gets a fresh runner); a
 * job's `if:` is printed, not evaluated. Exits 1 when any step failed.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { run } from "../containers/docker";
import { MIGRATIONS_DIR } from "../db/migrate";
import { describeTraffic } from "../deploy/rollout";
import { newestMigrationTag } from "../deploy/schema-check";
import { startStandInServer } from "../deploy/stand-in/server";
import { readState, writeState } from "../deploy/stand-in/state";
import { startDatabase } from "../stack/postgres";
import { ROOT } from "../stack/wrangler";
import { actionName, type ExpressionContext, type WorkflowJob, type WorkflowStep, workflowJobs } from "./jobs";

const ALL_JOBS = ["ci/test", "ci/images", "deploy/staging", "deploy/production"];
const TOKEN = "gld_dry_run_smoke_token";
const AGENT_ID = "00000000-0000-4000-8000-00000000d2d2";
const TAG = "v0.0.0-dry-run";
const FIRST_VERSION = "00000000-0000-4000-8000-0000000000f0";
/** As a job's `timeout-minutes` would, a step that hangs ends the dry run's wait for it. */
const STEP_TIMEOUT_MS = 60 * 60_000;

const { values } = parseArgs({ options: { job: { type: "string", multiple: true }, shard: { type: "string", default: "1" } }, strict: true });
const chosen = values.job?.length ? values.job : ALL_JOBS;
const unknown = chosen.filter((job) => !ALL_JOBS.includes(job));
if (unknown.length) {
  console.error(`workflows:dry-run: no job ${unknown.join(", ")}; the jobs are ${ALL_JOBS.join(", ")}`);
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "guilds-workflows-"));
const clone = join(work, "repo");
const sha = (await capture("git", ["rev-parse", "HEAD"], ROOT)).trim();
await capture("git", ["clone", "--quiet", "--no-local", ROOT, clone], work);
await capture("git", ["checkout", "--quiet", "--detach", sha], clone);
await capture("git", ["tag", TAG, sha], clone);
const database = await startDatabase({ stateDir: join(work, "postgres") });
const secrets: Record<string, string> = {
  CLOUDFLARE_API_TOKEN: "dry-run-placeholder-token",
  CLOUDFLARE_ACCOUNT_ID: "dry-run-placeholder-account",
  DATABASE_URL: database.url,
  SMOKE_TOKEN: TOKEN,
  SMOKE_AGENT_ID: AGENT_ID,
};
const failures: string[] = [];
console.log(`Dry run of ${chosen.join(", ")} on ${sha.slice(0, 12)} in ${clone}`);

try {
  for (const name of chosen) {
    const [file, jobId] = name.split("/") as [string, string];
    const env = jobId === "production" ? "production" : "staging";
    const stand = await standIns(env);
    try {
      const context: ExpressionContext = {
        "matrix.shard": values.shard as string,
        ...Object.fromEntries(Object.entries(secrets).map(([name, value]) => [`secrets.${name}`, value])),
        "vars.DEPLOY_URL": stand.url,
        "github.event.workflow_run.head_sha": sha,
        "github.event.workflow_run.head_branch": jobId === "production" ? TAG : "main",
      };
      const text = readFileSync(join(ROOT, ".github/workflows", `${file}.yml`), "utf8");
      const job = workflowJobs(text, context).find((j) => j.id === jobId);
      if (!job) throw new Error(`.github/workflows/${file}.yml has no job ${jobId}`);
      await capture("git", ["clean", "-qdffx"], clone);
      const ok = await runJob(name, job, { WRANGLER_BIN: join(clone, "scripts/deploy/stand-in/wrangler.ts"), WRANGLER_STAND_IN_STATE: stand.stateFile });
      if (!ok) failures.push(name);
      if (file === "deploy") console.log(`   deployments after the job: ${stand.traffic().join(" | ")}`);
    } finally {
      await stand.close();
    }
  }
} finally {
  await database.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(failures.length ? `\nworkflows:dry-run: ${failures.join(", ")} failed` : `\nworkflows:dry-run: ${chosen.length} job(s) passed`);
process.exit(failures.length ? 1 : 0);

/** Runs a job's steps in order; stops at its first failure, as the runner does. */
async function runJob(name: string, job: WorkflowJob, extraEnv: Record<string, string>): Promise<boolean> {
  console.log(`\n== ${name}${job.condition ? ` (if: ${job.condition.replace(/\s+/g, " ")})` : ""}`);
  const githubEnv = join(work, `${name.replace("/", "-")}.env`);
  writeFileSync(githubEnv, "");
  let path = `${dirname(process.execPath)}:${process.env.PATH}`;
  for (const step of job.steps) {
    const started = Date.now();
    const outcome = step.uses
      ? await standInFor(step, (dir) => (path = `${dir}:${path}`))
      : await runStep(step, { ...extraEnv, ...fromGithubEnv(githubEnv), GITHUB_ENV: githubEnv, PATH: path });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (outcome.ok) console.log(`   ✓ ${step.name} (${seconds} s)${outcome.note ? `: ${outcome.note}` : ""}${tail(outcome.output, 3)}`);
    else {
      console.log(`   ✘ ${step.name} (${seconds} s)${tail(outcome.output, 40)}`);
      return false;
    }
  }
  return true;
}

type Outcome = { ok: true; note?: string; output?: string } | { ok: false; output: string };

/** The last lines a step printed, indented under it. */
function tail(output: string | undefined, lines: number): string {
  const last = (output ?? "")
    .trim()
    .split("\n")
    .filter((line) => line.trim())
    .slice(-lines);
  return last.length ? `\n${last.join("\n").replace(/^/gm, "       ")}` : "";
}

/** What this machine does in place of an action. */
async function standInFor(step: WorkflowStep, prependPath: (dir: string) => void): Promise<Outcome> {
  const action = actionName(step.uses as string);
  if (action === "actions/checkout") return { ok: true, note: `the clone at ${step.with?.ref?.slice(0, 12) ?? "HEAD"}` };
  if (action === "actions/setup-node") {
    const major = process.versions.node.split(".")[0];
    const wanted = step.with?.["node-version"];
    return major === wanted
      ? { ok: true, note: `Node ${process.versions.node}` }
      : { ok: false, output: `the workflow asks for Node ${wanted}; the project's Node is ${process.versions.node}` };
  }
  if (action === "docker/setup-buildx-action") {
    if ((await run("docker", ["buildx", "version"], STEP_TIMEOUT_MS, ROOT)).code === 0) return { ok: true, note: "the engine's buildx" };
    const dir = join(work, "bin");
    mkdirSync(dir, { recursive: true });
    const real = (await capture("bash", ["-c", "command -v docker"], ROOT)).trim();
    writeFileSync(join(dir, "docker"), `#!/bin/sh\nif [ "$1" = buildx ] && [ "$2" = build ]; then shift 2; exec ${real} build "$@"; fi\nexec ${real} "$@"\n`);
    chmodSync(join(dir, "docker"), 0o755);
    prependPath(dir);
    return { ok: true, note: "no buildx here: `docker buildx build` builds with the classic builder" };
  }
  return { ok: false, output: `no stand-in for ${action}` };
}

/**
 * A `run:` step as the runner runs it: bash with -e and pipefail, in the checkout. A secret's
 * variable reaches it only through the step's (or job's) `env:`, never from this shell, so a
 * step that needs one and lacks it fails here as it would on GitHub.
 */
async function runStep(step: WorkflowStep, env: Record<string, string>): Promise<Outcome> {
  const { CI_SHARD: _, ...inherited } = process.env;
  for (const name of Object.keys(secrets)) delete inherited[name];
  const result = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run as string], STEP_TIMEOUT_MS, clone, {
    ...inherited,
    CI: "true",
    GITHUB_ACTIONS: "true",
    ...step.env,
    ...env,
  });
  return result.code === 0 ? { ok: true, output: result.output } : { ok: false, output: `${result.output}\n(exit ${result.code})` };
}

/** The KEY=value lines earlier steps wrote to $GITHUB_ENV. */
function fromGithubEnv(file: string): Record<string, string> {
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.includes("="));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

/** The wrangler and HTTP stand-ins of one environment, one good version serving at first. */
async function standIns(env: string) {
  const stateFile = join(work, `${env}-state.json`);
  const created_on = "2026-01-01T00:00:00.000Z";
  writeState(stateFile, {
    clock: 1,
    workers: {
      [env]: {
        versions: [{ id: FIRST_VERSION, behaviour: "good", vars: {}, created_on }],
        deployments: [{ id: "d0", created_on, versions: [{ version_id: FIRST_VERSION, percentage: 100 }] }],
      },
    },
  });
  const server = await startStandInServer({ stateFile, env, tag: newestMigrationTag(readdirSync(MIGRATIONS_DIR)) as string, token: TOKEN, agentId: AGENT_ID });
  const traffic = () =>
    (readState(stateFile).workers[env]?.deployments ?? []).map((d) =>
      describeTraffic(d.versions.map((v) => ({ ...v, version_id: v.version_id === FIRST_VERSION ? "previous" : "new" }))),
    );
  return { url: server.url, stateFile, traffic, close: () => server.close() };
}

async function capture(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, STEP_TIMEOUT_MS, cwd);
  if (result.code !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.output.trim()}`);
  return result.output;
}
