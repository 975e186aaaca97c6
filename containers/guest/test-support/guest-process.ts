/**
 * Test support: the guest bundled as the images run it and started as a real process on a
 * free port over a temporary home.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const TOKEN = "test-guest-token-0123456789";
export const auth = { authorization: `Bearer ${TOKEN}` };

export interface RunningGuest {
  base: string;
  home: string;
  dir: string;
  /** The settings file the guest was started with (removed once read). */
  settingsFile: string;
  stop: () => Promise<void>;
}

/** Bundles the guest into `dir` (once per test file). */
export async function bundleGuest(dir: string): Promise<string> {
  const bundle = join(dir, "guest.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("../main.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    target: "node24",
    format: "esm",
    outfile: bundle,
    logLevel: "warning",
  });
  return bundle;
}

/**
 * Starts a guest over a new home under `dir`, with further settings (its settings file, as
 * the box's entrypoint writes it) and further environment (what the box's would hold).
 */
export async function startGuest(bundle: string, dir: string, settings: Record<string, string> = {}, env: Record<string, string> = {}): Promise<RunningGuest> {
  const own = await mkdtemp(join(dir, "guest-"));
  const home = join(own, "home");
  await mkdir(home);
  const settingsFile = join(own, "settings.json");
  const all = { GUEST_TOKEN: TOKEN, GUEST_PORT: "0", GUEST_HOST: "127.0.0.1", GUEST_HOME: home, GUEST_SERVICE_LOG_DIR: join(own, "log"), ...settings };
  await writeFile(settingsFile, JSON.stringify(all), { mode: 0o600 });
  const guest: ChildProcess = spawn(process.execPath, [bundle, settingsFile], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    guest.once("exit", (code) => reject(new Error(`guest exited with ${code}`)));
    guest.stdout!.on("data", (chunk: Buffer) => {
      const match = /GUEST_LISTENING (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
  });
  return {
    base: `http://127.0.0.1:${port}`,
    home,
    dir: own,
    settingsFile,
    stop: async () => {
      const exited = new Promise((r) => guest.once("exit", r));
      guest.kill("SIGTERM");
      await exited;
    },
  };
}

export async function tempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}
