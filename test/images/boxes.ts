/**
 * Test support for the sandbox images: build them (docker's cache makes a rebuild cheap), run
 * boxes on the default bridge and talk to their guest at the container's address, as the
 * Container class does.
 */
import { execFile as execFileCb, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type ExecLine, LineReader } from "../../containers/guest/ndjson";

const execFile = promisify(execFileCb);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const IMAGES = { lite: "guilds-sandbox-lite", standard: "guilds-sandbox-standard" } as const;
const LABEL = "guilds-images-test";

/** Why docker cannot be used here, or undefined when it can. */
export function dockerUnavailable(): string | undefined {
  const info = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { encoding: "utf8", timeout: 20_000 });
  if (info.error) return `docker CLI not found (${info.error.message})`;
  if (info.status !== 0) return `docker info failed: ${(info.stderr || info.stdout).trim().split("\n").at(-1)}`;
  return undefined;
}

/** Bundles the guest and the terminal, then builds both images from containers/. */
export async function buildImages(): Promise<Record<keyof typeof IMAGES, number>> {
  await execFile("npm", ["run", "--silent", "guest:build"], { cwd: ROOT });
  await execFile("npm", ["run", "--silent", "terminal:build"], { cwd: ROOT });
  const seconds = { lite: 0, standard: 0 };
  for (const box of ["lite", "standard"] as const) {
    const started = performance.now();
    await execFile("docker", ["build", "-q", "-f", `containers/${box}/Dockerfile`, "-t", IMAGES[box], "containers"], { cwd: ROOT, maxBuffer: 1 << 24 });
    seconds[box] = (performance.now() - started) / 1000;
  }
  return seconds;
}

export interface Box {
  id: string;
  ip: string;
  token: string;
  guest: string;
  exec: (command: string, env?: Record<string, string>) => Promise<{ stdout: string; stderr: string; exitCode: number | null }>;
  /** `docker stop`: SIGTERM through tini to the guest, as the platform stops a box. */
  stop: () => Promise<void>;
  remove: () => Promise<void>;
}

/**
 * Starts a box as the sandbox object would (the guest's settings, its token among them, in
 * GUEST_CONFIG; `GUEST_*` entries of `env` join them, the rest is the box's environment)
 * and waits for the guest.
 */
export async function runBox(box: keyof typeof IMAGES, env: Record<string, string> = {}): Promise<Box> {
  const token = randomBytes(24).toString("hex");
  const settings: Record<string, string> = { GUEST_TOKEN: token };
  const args = ["run", "-d", "--rm", "--label", LABEL];
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith("GUEST_")) settings[name] = value;
    else args.push("-e", `${name}=${value}`);
  }
  args.push("-e", `GUEST_CONFIG=${JSON.stringify(settings)}`);
  const { stdout } = await execFile("docker", [...args, IMAGES[box]]);
  const id = stdout.trim();
  const inspect = await execFile("docker", ["inspect", "--format", "{{.NetworkSettings.IPAddress}}", id]);
  const ip = inspect.stdout.trim();
  const guest = `http://${ip}:8080`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`${guest}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline)
      throw new Error(`the ${box} box's guest did not answer: ${(await execFile("docker", ["logs", id]).catch(() => ({ stdout: "" }))).stdout}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const exec: Box["exec"] = async (command, commandEnv) => {
    const res = await fetch(`${guest}/exec`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ command, env: commandEnv, timeout_ms: 60_000 }),
    });
    if (res.status !== 200) throw new Error(`exec answered ${res.status}: ${await res.text()}`);
    const reader = new LineReader();
    let stdout = "";
    let stderr = "";
    let exitCode: number | null = null;
    for (const text of reader.push(await res.text())) {
      const line = JSON.parse(text) as ExecLine;
      if (line.type === "output") line.stream === "stdout" ? (stdout += line.data) : (stderr += line.data);
      if (line.type === "exit") exitCode = line.exit_code;
    }
    return { stdout, stderr, exitCode };
  };
  return {
    id,
    ip,
    token,
    guest,
    exec,
    stop: () => execFile("docker", ["stop", "-t", "60", id]).then(() => undefined),
    remove: () =>
      execFile("docker", ["rm", "-f", id]).then(
        () => undefined,
        () => undefined,
      ),
  };
}

export const authed = (box: Box, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${box.token}` },
});

/**
 * Commands as a coding agent's run them (HOME is /home/agent on coding boxes): `sh` fails on a
 * non-zero exit unless `allowFail`, `json` parses stdout.
 */
export function agentShell(current: () => Box) {
  const sh = async (command: string, env: Record<string, string> = {}, allowFail = false) => {
    const result = await current().exec(command, { HOME: "/home/agent", ...env });
    if (!allowFail && result.exitCode !== 0) throw new Error(`${command} exited ${result.exitCode}: ${result.stderr}${result.stdout}`);
    return result;
  };
  const json = async <T>(command: string, env?: Record<string, string>): Promise<T> => JSON.parse((await sh(command, env)).stdout) as T;
  return { sh, json };
}
