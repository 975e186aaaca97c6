import { parseArgs } from "node:util";
import { parseSteps } from "./rollout";
import { targetOrigin } from "./target";

/**
 * What `npm run deploy` does: every step, or one of them: migrate (the database), rollout
 * (upload and roll out a version already built), check (health of what serves now).
 */
export type DeployStep = "all" | "migrate" | "rollout" | "check";

export interface DeployOptions {
  /** A `[env.<name>]` of wrangler.toml. */
  env: string;
  /** The origin where the deployed console answers; otherwise what wrangler reports or the environment's route. */
  url?: string;
  step: DeployStep;
  /** Percentages of traffic for the new version (default: production 10,50,100; others 100). */
  steps?: number[];
  /** Seconds each step but the last serves before the next one (default 30). */
  soakS?: number;
  /** The deployment's message in Cloudflare (e.g. the tag). */
  message?: string;
}

const STEPS: readonly DeployStep[] = ["all", "migrate", "rollout", "check"];

type Parsed<T> = { ok: true; options: T } | { ok: false; message: string };

function checkEnv(env: string | undefined, environments: string[]): string | null {
  const known = environments.length ? environments.join(", ") : "none: add [env.<name>] to wrangler.toml";
  if (!env) return `--env is required (environments in wrangler.toml: ${known})`;
  if (!environments.includes(env)) return `--env ${env} is not an environment of wrangler.toml (it has: ${known})`;
  return null;
}

/**
 * Reads `npm run deploy` arguments, or names what is wrong with them.
 *
 * @example parseDeployArgs(["--env", "production"], ["staging", "production"])
 * // { ok: true, options: { env: "production", step: "all" } }
 */
export function parseDeployArgs(argv: string[], environments: string[]): Parsed<DeployOptions> {
  let values: { env?: string; url?: string; only?: string; steps?: string; soak?: string; message?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        env: { type: "string", short: "e" },
        url: { type: "string" },
        only: { type: "string" },
        steps: { type: "string" },
        soak: { type: "string" },
        message: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const envProblem = checkEnv(values.env, environments);
  if (envProblem) return { ok: false, message: envProblem };
  const step = (values.only ?? "all") as DeployStep;
  if (!STEPS.includes(step)) return { ok: false, message: `--only must be migrate, rollout or check, got ${JSON.stringify(values.only)}` };
  const options: DeployOptions = { env: values.env as string, step };
  if (values.url !== undefined) {
    const url = targetOrigin(values.url);
    if (!url) return { ok: false, message: `--url must be an http(s) URL or a host such as agents.example.com, got ${JSON.stringify(values.url)}` };
    options.url = url;
  }
  if (values.steps !== undefined) {
    const steps = parseSteps(values.steps);
    if (!steps.ok) return steps;
    options.steps = steps.steps;
  }
  if (values.soak !== undefined) {
    if (!/^\d+$/.test(values.soak) || Number(values.soak) > 3600)
      return { ok: false, message: `--soak takes seconds from 0 to 3600, got ${JSON.stringify(values.soak)}` };
    options.soakS = Number(values.soak);
  }
  if (values.message !== undefined) options.message = values.message;
  return { ok: true, options };
}

export interface RollbackOptions {
  env: string;
  /** The version to return to; otherwise the previous one (scripts/deploy/rollout.ts rollbackTarget). */
  version?: string;
  /** Print what it would do, change nothing. */
  dryRun: boolean;
}

/**
 * Reads `npm run rollback` arguments.
 *
 * @example parseRollbackArgs(["--env", "production", "--dry-run"], ["production"]) // { ok: true, options: { env: "production", dryRun: true } }
 */
export function parseRollbackArgs(argv: string[], environments: string[]): Parsed<RollbackOptions> {
  let values: { env?: string; version?: string; "dry-run"?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { env: { type: "string", short: "e" }, version: { type: "string" }, "dry-run": { type: "boolean" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const envProblem = checkEnv(values.env, environments);
  if (envProblem) return { ok: false, message: envProblem };
  if (values.version !== undefined && !/^[0-9a-zA-Z-]{4,64}$/.test(values.version)) {
    return { ok: false, message: `--version takes a version id as \`wrangler versions list\` prints it, got ${JSON.stringify(values.version)}` };
  }
  return { ok: true, options: { env: values.env as string, dryRun: values["dry-run"] ?? false, ...(values.version ? { version: values.version } : {}) } };
}
