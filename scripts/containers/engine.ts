/**
 * The container engine of the local stack. `wrangler dev` runs the sandbox Container classes
 * in real containers when a Docker engine answers; this module makes one answer where it can
 * (Debian: install docker.io, start the daemon), makes the base image and the egress sidecar
 * where no registry serves them, and builds the declared images so wrangler's own build only
 * hits the cache. Where none of that is possible (a laptop without Docker, a user who is not
 * root) the stack still starts: containers off, and the reason reaches the Worker, whose
 * sandbox tools then answer `sandbox.unavailable` with it.
 *
 * Everything is cached by the engine itself (images, layers); a second start costs a few
 * `docker image inspect` calls and cached builds.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BASE_IMAGE, buildImage, DEFAULT_EGRESS_IMAGE, EGRESS_STAND_IN, hasImage, run, tryPull } from "./docker";
import { localImageTag } from "./first-start";
import { declaredImages } from "./wrangler-images";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const ROOT = join(HERE, "../..");

export interface ContainerEngine {
  enabled: boolean;
  /** Why containers are off, in words for the operator (only when disabled). */
  reason?: string;
  /** Environment for wrangler dev (its docker command, the sidecar image). */
  env: Record<string, string>;
}

export interface EngineOptions {
  /** `off` skips everything (GUILDS_CONTAINERS=off); `auto` sets up what it can. */
  mode?: "auto" | "off";
  log?: (line: string) => void;
}

/**
 * @example
 *   const engine = await prepareContainerEngine({ log: console.log });
 *   if (!engine.enabled) console.log(`sandboxes unavailable: ${engine.reason}`);
 */
export async function prepareContainerEngine(options: EngineOptions = {}): Promise<ContainerEngine> {
  const log = options.log ?? (() => {});
  const mode = options.mode ?? (process.env.GUILDS_CONTAINERS === "off" ? "off" : "auto");
  if (mode === "off") return off("containers are turned off (GUILDS_CONTAINERS=off)");
  const started = Date.now();
  const engine = await ensureDaemon(log);
  if (!engine.ok) return off(engine.reason);
  // wrangler's docker goes through our wrapper: it translates build flags for a docker without
  // buildx, and labels each stack's images (see docker-for-wrangler.sh).
  const env: Record<string, string> = { WRANGLER_DOCKER_BIN: join(HERE, "docker-for-wrangler.sh") };
  try {
    if (!(await hasImage(BASE_IMAGE)) && !(await tryPull(BASE_IMAGE))) await makeBaseImage(log);
    if (!(await hasImage(DEFAULT_EGRESS_IMAGE)) && !(await tryPull(DEFAULT_EGRESS_IMAGE))) {
      await buildImage({ tag: EGRESS_STAND_IN, dockerfile: join(HERE, "egress-stand-in/Dockerfile"), context: join(HERE, "egress-stand-in") }, log);
      env.MINIFLARE_CONTAINER_EGRESS_IMAGE = EGRESS_STAND_IN;
    }
    const images = declaredImages(join(ROOT, "wrangler.toml"));
    // The images copy the guest's and the terminal's bundles (containers/README.md).
    if (images.length) await buildBundles();
    for (const image of images) {
      const began = Date.now();
      await buildImage({ tag: localImageTag(image.className), dockerfile: image.dockerfile, context: image.context }, log);
      log(`image of ${image.className} ready (${((Date.now() - began) / 1000).toFixed(1)} s)`);
    }
  } catch (error) {
    return off(error instanceof Error ? error.message : String(error));
  }
  log(`container engine ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return { enabled: true, env };

  function off(reason: string): ContainerEngine {
    log(`sandboxes unavailable: ${reason}`);
    return { enabled: false, reason: oneLine(reason), env: {} };
  }
}

/**
 * The reason as the console shows it and a Worker variable can carry it: one line, no
 * terminal colours, no quotes, at most 400 characters (a build's last line can be long).
 */
export function oneLine(reason: string): string {
  const plain = reason
    .replace(/\x1b\[[0-9;]*m/g, "")
    .replace(/["'`]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > 400 ? `${plain.slice(0, 399)}…` : plain;
}

type Daemon = { ok: true } | { ok: false; reason: string };

async function ensureDaemon(log: (line: string) => void): Promise<Daemon> {
  if ((await run("docker", ["info"])).code === 0) return { ok: true };
  if ((await run("sh", ["-c", "command -v dockerd"])).code !== 0) {
    const installed = await aptInstall(["docker.io"], log);
    if (!installed.ok) return { ok: false, reason: `no Docker engine answers and none could be installed (${installed.reason})` };
  }
  if (process.getuid?.() !== 0) return { ok: false, reason: "no Docker engine answers, and only root may start one here" };
  log("starting the Docker engine");
  // An explicit bridge address: without it the default bridge reports no gateway on these
  // machines and workerd's container client fails its DNS lookup of the container.
  const logFile = openSync(join(tmpdir(), "guilds-dockerd.log"), "a");
  const daemon = spawn("dockerd", ["--bip=172.17.0.1/16"], { detached: true, stdio: ["ignore", logFile, logFile] });
  daemon.unref();
  closeSync(logFile);
  for (let waited = 0; waited < 30_000; waited += 500) {
    if ((await run("docker", ["info"])).code === 0) return { ok: true };
    await new Promise((r) => setTimeout(r, 500));
  }
  return { ok: false, reason: `the Docker engine did not answer within 30 s (see ${join(tmpdir(), "guilds-dockerd.log")})` };
}

/**
 * The Dockerfiles start FROM debian:bookworm-slim. Without a registry, the same image is made
 * from Debian's own mirror: debootstrap a minimal bookworm and import it under that name, so one
 * Dockerfile serves production builds and local ones.
 */
async function makeBaseImage(log: (line: string) => void): Promise<void> {
  if ((await run("sh", ["-c", "command -v debootstrap"])).code !== 0) {
    const installed = await aptInstall(["debootstrap"], log);
    if (!installed.ok) throw new Error(`${BASE_IMAGE} is missing, no registry serves it, and debootstrap could not be installed (${installed.reason})`);
  }
  log(`making ${BASE_IMAGE} from Debian's mirror (debootstrap, about 30 s)`);
  const dir = mkdtempSync(join(tmpdir(), "guilds-bookworm-"));
  try {
    const made = await run("debootstrap", ["--variant=minbase", "bookworm", dir, await aptMirror()]);
    if (made.code !== 0) throw new Error(`debootstrap failed: ${made.output.slice(-500)}`);
    // apt's downloads are not part of an image; certificate authorities this machine adds are:
    // where a proxy re-signs TLS, the images' npm and curl must trust it as the host does.
    await run("sh", [
      "-c",
      `rm -rf "${dir}"/var/cache/apt/archives/*.deb "${dir}"/var/lib/apt/lists/*; mkdir -p "${dir}/usr/local/share/ca-certificates"; cp /usr/local/share/ca-certificates/*.crt "${dir}/usr/local/share/ca-certificates/" 2>/dev/null || true`,
    ]);
    const imported = await run("sh", ["-c", `tar -C "${dir}" -c . | docker import - ${BASE_IMAGE}`]);
    if (imported.code !== 0) throw new Error(`docker import failed: ${imported.output.slice(-500)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function buildBundles(): Promise<void> {
  for (const script of ["guest:build", "terminal:build"]) {
    const built = await run("npm", ["run", "--silent", script], 120_000, ROOT);
    if (built.code !== 0) throw new Error(`npm run ${script} failed: ${built.output.slice(-500)}`);
  }
}

/** The Debian mirror apt already uses (deb822 or one-line sources). */
async function aptMirror(): Promise<string> {
  const found = await run("sh", ["-c", "cat /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null"]);
  const uri = /^URIs:\s*(\S+\/debian)\s*$/m.exec(found.output)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm\s/m.exec(found.output)?.[1];
  return uri ?? "http://deb.debian.org/debian";
}

async function aptInstall(packages: string[], log: (line: string) => void): Promise<Daemon> {
  if ((await run("sh", ["-c", "command -v apt-get"])).code !== 0) return { ok: false, reason: "apt-get is not available" };
  const asRoot = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  if (asRoot.length && (await run("sudo", ["-n", "true"])).code !== 0) return { ok: false, reason: "installing needs root" };
  const [command, ...prefix] = [...asRoot, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"];
  const apt = (args: string[]) => run(command!, [...prefix, ...args]);
  log(`installing ${packages.join(", ")} (apt-get)`);
  let result = await apt(["install", "-y", "-qq", ...packages]);
  // A fresh machine's package lists may be missing or stale.
  if (result.code !== 0) result = (await apt(["update", "-qq"])).code === 0 ? await apt(["install", "-y", "-qq", ...packages]) : result;
  return result.code === 0 ? { ok: true } : { ok: false, reason: `apt-get install ${packages.join(" ")} failed: ${result.output.slice(-300)}` };
}
