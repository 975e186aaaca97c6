import { parseArgs } from "node:util";
import { targetOrigin } from "./target";

/** What `npm run deploy` does: every step, or one of them (CI runs them around Cloudflare's wrangler action). */
export type DeployStep = "all" | "migrate" | "check";

export interface DeployOptions {
  /** A `[env.<name>]` of wrangler.toml. */
  env: string;
  /** The origin where the deployed console answers; otherwise what wrangler reports or the environment's route. */
  url?: string;
  step: DeployStep;
}

const STEPS: readonly DeployStep[] = ["all", "migrate", "check"];

/**
 * Reads `npm run deploy` arguments, or names what is wrong with them.
 *
 * @example parseDeployArgs(["--env", "production"], ["staging", "production"])
 * // { ok: true, options: { env: "production", step: "all" } }
 */
export function parseDeployArgs(argv: string[], environments: string[]): { ok: true; options: DeployOptions } | { ok: false; message: string } {
  let values: { env?: string; url?: string; only?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { env: { type: "string", short: "e" }, url: { type: "string" }, only: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const known = environments.length ? environments.join(", ") : "none: add [env.<name>] to wrangler.toml";
  if (!values.env) return { ok: false, message: `--env is required (environments in wrangler.toml: ${known})` };
  if (!environments.includes(values.env)) return { ok: false, message: `--env ${values.env} is not an environment of wrangler.toml (it has: ${known})` };
  const step = (values.only ?? "all") as DeployStep;
  if (!STEPS.includes(step)) return { ok: false, message: `--only must be migrate or check, got ${JSON.stringify(values.only)}` };
  let url: string | undefined;
  if (values.url !== undefined) {
    url = targetOrigin(values.url);
    if (!url) return { ok: false, message: `--url must be an http(s) URL or a host such as agents.example.com, got ${JSON.stringify(values.url)}` };
  }
  return { ok: true, options: { env: values.env, step, ...(url ? { url } : {}) } };
}
