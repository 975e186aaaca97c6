/**
 * Test support: the guest bundled as the images run it and started as a real process, and a
 * headless Chromium with CDP on a free port (Debian's /usr/bin/chromium), as the box's is.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleGuest, type RunningGuest, startGuest as startGuestProcess, tempDir } from "../../containers/guest/test-support/guest-process";
import { CHROMIUM, CHROMIUM_FLAGS } from "../browser/browser";

export { type RunningGuest, TOKEN as TEST_GUEST_TOKEN } from "../../containers/guest/test-support/guest-process";
export { CHROMIUM } from "../browser/browser";
/** The project's playwright-core, standing in for the image's /opt/playwright. */
export const PROJECT_PLAYWRIGHT = fileURLToPath(new URL("../../node_modules/playwright-core", import.meta.url));

/** Bundles containers/guest/main.ts and starts it on a free loopback port over a temporary home, with further settings. */
export async function startGuest(settings: Record<string, string> = {}): Promise<RunningGuest> {
  const { dir, remove } = await tempDir("guest-proc-");
  const guest = await startGuestProcess(await bundleGuest(dir), dir, settings);
  return {
    ...guest,
    async stop() {
      await guest.stop();
      await remove();
    },
  };
}

export interface RunningChromium {
  cdpUrl: string;
  stop(): Promise<void>;
}

/** Headless Chromium with a fresh profile and CDP on a free port; no calls to Google's services. */
export async function startChromium(): Promise<RunningChromium> {
  const profile = await mkdtemp(join(tmpdir(), "guest-chromium-"));
  const child = spawn(
    CHROMIUM,
    [
      ...CHROMIUM_FLAGS,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "--window-size=1280,720",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("Chromium did not open its DevTools port within 30 s")), 30_000);
    child.once("exit", (code) => reject(new Error(`Chromium exited with ${code}`)));
    child.stderr!.on("data", (chunk: Buffer) => {
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)/.exec(chunk.toString());
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  return {
    cdpUrl: `http://127.0.0.1:${port}`,
    async stop() {
      await stopProcess(child);
      // Chromium's helper processes may still write the profile for a moment after it exits.
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** Whether a process id is alive: it exists and is not a zombie waiting to be reaped. */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state follows the parenthesised command name, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
