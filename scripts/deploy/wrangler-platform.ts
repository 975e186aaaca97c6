/**
 * The rollout's platform on a real account: wrangler's versions commands, and the HTTP checks
 * against the deployment's origin. WRANGLER_BIN names another program to run instead of the
 * project's wrangler (a `.ts` file runs with tsx): the rehearsal's stand-in uses it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../stack/wrangler";
import { type CheckTiming, healthProblem, smokeProblem, versionOverride } from "./checks";
import type { Deployment, RolloutPlatform, UploadResult, VersionTraffic } from "./rollout";
import { deployedOrigin } from "./target";

export interface WranglerResult {
  status: number;
  stdout: string;
  stderr: string;
  /** What wrangler wrote to WRANGLER_OUTPUT_FILE_PATH (one JSON object a line). */
  output: string;
}

/** The program and leading arguments that run wrangler. */
export function wranglerCommand(bin = process.env.WRANGLER_BIN): string[] {
  if (!bin) return [process.execPath, join(ROOT, "node_modules/wrangler/bin/wrangler.js")];
  return bin.endsWith(".ts") ? [process.execPath, "--import", "tsx", bin] : [bin];
}

/** Runs wrangler; with `echo` its output also reaches the terminal as it comes (image builds take minutes). */
export function runWrangler(args: string[], echo: boolean): Promise<WranglerResult> {
  const dir = mkdtempSync(join(tmpdir(), "guilds-wrangler-"));
  const outputFile = join(dir, "output.json");
  const [command, ...lead] = wranglerCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, [...lead, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_OUTPUT_FILE_PATH: outputFile },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
      if (echo) process.stdout.write(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
      if (echo) process.stderr.write(chunk);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      let output = "";
      try {
        output = readFileSync(outputFile, "utf8");
      } catch {}
      rmSync(dir, { recursive: true, force: true });
      resolve({ status: code ?? (signal ? 128 : 1), stdout, stderr, output });
    });
  });
}

/** The JSON a `--json` command printed, past anything before it. */
function printedJson<T>(stdout: string): T {
  const start = stdout.search(/[[{]/);
  return JSON.parse(start >= 0 ? stdout.slice(start) : stdout) as T;
}

/** The entry of a type in wrangler's output file. */
function outputEntry(output: string, type: string): Record<string, unknown> | undefined {
  for (const line of output.split("\n")) {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.type === type) return entry;
    } catch {}
  }
  return undefined;
}

/**
 * The Worker's own workers.dev origin from a version's preview URL
 * (`https://<version prefix>-<worker>.<subdomain>.workers.dev`).
 *
 * @example workersDevOrigin("https://0f1e2d3c-guilds-platform-staging.acme.workers.dev", "guilds-platform-staging") // "https://guilds-platform-staging.acme.workers.dev"
 */
export function workersDevOrigin(previewUrl: unknown, workerName: string): string | undefined {
  if (typeof previewUrl !== "string") return undefined;
  try {
    const url = new URL(previewUrl);
    const [first, ...rest] = url.hostname.split(".");
    if (!first?.endsWith(`-${workerName}`) || rest.at(-1) !== "dev") return undefined;
    return `https://${[workerName, ...rest].join(".")}`;
  } catch {
    return undefined;
  }
}

function failure(label: string, result: WranglerResult): Error {
  const last = `${result.stderr}\n${result.stdout}`.trim().split("\n").filter(Boolean).slice(-3).join(" / ");
  return new Error(`${label} exited ${result.status}${last ? `: ${last.slice(0, 400)}` : ""}`);
}

export interface WranglerPlatformOptions {
  env: string;
  workerName: string;
  /** `--var NAME:value` of the upload (e.g. DATABASE_LOCATION_HINT). */
  vars: Record<string, string>;
  message?: string;
  /** Where the deployment answers; otherwise learnt from wrangler's output. */
  origin?: string;
  /** The newest migration, which /api/health must report. */
  tag: string;
  smoke?: { token: string; agentId: string };
  soakMs: number;
  timing: { health: CheckTiming; smoke: CheckTiming };
  log(line: string): void;
}

export function wranglerPlatform(options: WranglerPlatformOptions): RolloutPlatform & { deployments(): Promise<Deployment[]>; origin(): string | undefined } {
  let origin = options.origin;
  const envArgs = ["--env", options.env];
  const varArgs = Object.entries(options.vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const messageArgs = options.message ? ["--message", options.message.slice(0, 100)] : [];
  let smokeWarned = false;

  return {
    origin: () => origin,
    checkable: () => (origin ? null : "no URL to check the new version at: pass --url https://<where it answers>"),
    async currentDeployment() {
      const result = await runWrangler(["deployments", "status", "--json", ...envArgs], false);
      if (result.status !== 0) {
        if (/no deployments|does not exist|code: 10007/i.test(`${result.stderr}${result.stdout}`)) return null;
        throw failure("wrangler deployments status", result);
      }
      return printedJson<Deployment>(result.stdout);
    },
    async deployments() {
      const result = await runWrangler(["deployments", "list", "--json", ...envArgs], false);
      if (result.status !== 0) throw failure("wrangler deployments list", result);
      return printedJson<Deployment[]>(result.stdout);
    },
    async upload(): Promise<UploadResult> {
      const result = await runWrangler(["versions", "upload", ...envArgs, ...varArgs, ...messageArgs], true);
      if (result.status !== 0) {
        if (/pending Durable Object migration/i.test(`${result.stderr}${result.stdout}`))
          return { needsFullDeploy: "wrangler.toml adds a Durable Object migration" };
        throw failure("wrangler versions upload", result);
      }
      const entry = outputEntry(result.output, "version-upload");
      const versionId = entry?.version_id;
      if (typeof versionId !== "string") throw new Error("wrangler versions upload reported no version id");
      origin ??= workersDevOrigin(entry?.preview_url, options.workerName);
      return { versionId };
    },
    async deployAtOnce() {
      const result = await runWrangler(["deploy", ...envArgs, ...varArgs, ...messageArgs], true);
      if (result.status !== 0) throw failure("wrangler deploy", result);
      origin ??= deployedOrigin(result.output);
      const versionId = outputEntry(result.output, "deploy")?.version_id;
      if (typeof versionId !== "string") throw new Error("wrangler deploy reported no version id");
      return versionId;
    },
    async deploy(traffic: VersionTraffic[]) {
      const specs = traffic.map((t) => `${t.version_id}@${t.percentage}%`);
      const result = await runWrangler(["versions", "deploy", ...specs, "--yes", ...envArgs, ...messageArgs], true);
      if (result.status !== 0) throw failure("wrangler versions deploy", result);
    },
    async health(versionId) {
      if (!origin) return "no URL to check: pass --url https://<where it answers>";
      return healthProblem(origin, options.tag, versionOverride(options.workerName, versionId), options.timing.health);
    },
    async smoke(versionId) {
      if (!options.smoke) {
        if (!smokeWarned) options.log("warning: SMOKE_TOKEN and SMOKE_AGENT_ID are not set: no smoke run between steps, health only.");
        smokeWarned = true;
        return null;
      }
      if (!origin) return "no URL to check: pass --url https://<where it answers>";
      return smokeProblem({ origin, ...options.smoke, headers: versionOverride(options.workerName, versionId) }, options.timing.smoke);
    },
    async soak() {
      if (options.soakMs <= 0) return;
      options.log(`Watching for ${Math.round(options.soakMs / 1000)} s before the next step.`);
      await new Promise((resolve) => setTimeout(resolve, options.soakMs));
    },
    log: options.log,
  };
}
