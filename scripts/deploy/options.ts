import { type ParseArgsConfig, parseArgs } from "node:util";
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

/**
 * Reads a script's flags (strict: no unknown flag, no positional) with its required
 * `--env`/`-e`, which must name an environment of wrangler.toml; or names what is wrong.
 *
 * @example parseEnvArgs<{ env?: string; "dry-run"?: boolean }>(["-e", "staging"], ["staging"], { "dry-run": { type: "boolean" } })
 * // { ok: true, options: { env: "staging" } }
 */
function parseEnvArgs<V extends { env?: string }>(
  argv: string[],
  environments: string[],
  flags: NonNullable<ParseArgsConfig["options"]>,
): Parsed<V & { env: string }> {
  let values: V;
  try {
    values = parseArgs({ args: argv, options: { env: { type: "string", short: "e" }, ...flags }, strict: true, allowPositionals: false }).values as V;
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const known = environments.length ? environments.join(", ") : "none: add [env.<name>] to wrangler.toml";
  if (!values.env) return { ok: false, message: `--env is required (environments in wrangler.toml: ${known})` };
  if (!environments.includes(values.env)) return { ok: false, message: `--env ${values.env} is not an environment of wrangler.toml (it has: ${known})` };
  return { ok: true, options: values as V & { env: string } };
}

/**
 * Reads `npm run deploy` arguments, or names what is wrong with them.
 *
 * @example parseDeployArgs(["--env", "production"], ["staging", "production"])
 * // { ok: true, options: { env: "production", step: "all" } }
 */
export function parseDeployArgs(argv: string[], environments: string[]): Parsed<DeployOptions> {
  const parsed = parseEnvArgs<{ env?: string; url?: string; only?: string; steps?: string; soak?: string; message?: string }>(argv, environments, {
    url: { type: "string" },
    only: { type: "string" },
    steps: { type: "string" },
    soak: { type: "string" },
    message: { type: "string" },
  });
  if (!parsed.ok) return parsed;
  const values = parsed.options;
  const step = (values.only ?? "all") as DeployStep;
  if (!STEPS.includes(step)) return { ok: false, message: `--only must be migrate, rollout or check, got ${JSON.stringify(values.only)}` };
  const options: DeployOptions = { env: values.env, step };
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
  const parsed = parseEnvArgs<{ env?: string; version?: string; "dry-run"?: boolean }>(argv, environments, {
    version: { type: "string" },
    "dry-run": { type: "boolean" },
  });
  if (!parsed.ok) return parsed;
  const values = parsed.options;
  if (values.version !== undefined && !/^[0-9a-zA-Z-]{4,64}$/.test(values.version)) {
    return { ok: false, message: `--version takes a version id as \`wrangler versions list\` prints it, got ${JSON.stringify(values.version)}` };
  }
  return { ok: true, options: { env: values.env, dryRun: values["dry-run"] ?? false, ...(values.version ? { version: values.version } : {}) } };
}
