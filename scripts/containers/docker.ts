/** The few docker commands the local stack runs (the engine's CLI; no SDK). */
import { spawn } from "node:child_process";

/** The base of both sandbox images (see engine.ts for how it is made without a registry). */
export const BASE_IMAGE = "debian:bookworm-slim";
/** The sidecar image workerd starts next to every container unless told otherwise. */
export const DEFAULT_EGRESS_IMAGE = "cloudflare/proxy-everything:3cb1195";
/** Our local stand-in for it (scripts/containers/egress-stand-in). */
export const EGRESS_STAND_IN = "guilds-local/egress-stand-in:1";

export interface RunResult {
  code: number;
  /** stdout and stderr together. */
  output: string;
}

/** Runs a command to its end (in `cwd`, with `env` instead of this process's); never throws (a missing program is code 127). */
export function run(command: string, args: string[], timeoutMs = 20 * 60_000, cwd?: string, env?: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, cwd, ...(env ? { env } : {}) });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-64 * 1024);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.once("error", (error) => resolve({ code: 127, output: error.message }));
    child.once("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

export async function hasImage(tag: string): Promise<boolean> {
  return (await run("docker", ["image", "inspect", tag])).code === 0;
}

/** The default bridge's gateway: this machine as the containers reach it (172.17.0.1 as engine.ts starts dockerd); null without an engine. */
export async function bridgeGateway(): Promise<string | null> {
  const result = await run("docker", ["network", "inspect", "bridge", "--format", "{{(index .IPAM.Config 0).Gateway}}"], 20_000);
  const address = result.output.trim();
  return result.code === 0 && /^\d+\.\d+\.\d+\.\d+$/.test(address) ? address : null;
}

/** A pull with a short limit: where no registry answers it fails within seconds. */
export async function tryPull(tag: string): Promise<boolean> {
  return (await run("docker", ["pull", "-q", tag], 120_000)).code === 0;
}

export async function buildImage(image: { tag: string; dockerfile: string; context: string }, log: (line: string) => void): Promise<void> {
  const built = await run("docker", ["build", "-q", "-t", image.tag, "-f", image.dockerfile, image.context]);
  if (built.code !== 0) {
    log(built.output.slice(-4000));
    throw new Error(`building ${image.dockerfile} failed (docker build exit ${built.code}): ${lastLine(built.output)}`);
  }
}

/**
 * workerd removes a container when it stops but leaves its `…-proxy` sidecar running (and a
 * killed stack leaves both). Removes the sidecars of this Worker whose container is gone.
 * A sidecar comes up before its container, so a young one may be a box another stack of
 * this Worker is starting right now: only sidecars older than `minAgeMs` are removed.
 */
export async function removeOrphanSidecars(workerName: string, minAgeMs = 120_000): Promise<number> {
  const listed = await run("docker", ["ps", "-a", "--format", "{{.Names}}", "--filter", `name=^workerd-([0-9a-f]+-)?${workerName}-`]);
  if (listed.code !== 0) return 0;
  const names = new Set(listed.output.split("\n").filter(Boolean));
  const candidates = [...names].filter((name) => name.endsWith("-proxy") && !names.has(name.slice(0, -"-proxy".length)));
  if (!candidates.length) return 0;
  const created = await run("docker", ["inspect", "--format", "{{.Name}} {{.Created}}", ...candidates]);
  const orphans = created.output
    .split("\n")
    .map((line) => line.trim().split(" "))
    .filter(([name, at]) => name && at && Date.now() - Date.parse(at) >= minAgeMs)
    .map(([name]) => name!.replace(/^\//, ""));
  if (orphans.length) await run("docker", ["rm", "-f", ...orphans]);
  return orphans.length;
}

/**
 * Removes the containers (and their sidecars) built from this stack's images: what a stack
 * killed with -9 left running, since wrangler dev only cleans up when it exits on its own.
 * Called before wrangler dev starts, so none of them is in use.
 */
export async function removeStackContainers(label: string): Promise<number> {
  const listed = await run("docker", ["ps", "-a", "--format", "{{.Names}}", "--filter", `label=guilds.stack=${label}`]);
  const names = listed.code === 0 ? listed.output.split("\n").filter(Boolean) : [];
  if (names.length) await run("docker", ["rm", "-f", ...names.flatMap((name) => [name, `${name}-proxy`])]);
  return names.length;
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1) ?? "";
}
