import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readLines } from "./process-info";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface WranglerDev {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface WranglerOptions {
  port: number;
  inspectorPort: number;
  /** Worker variables; written to a private env file, never to the command line. */
  vars: Record<string, string>;
  envFile: string;
  persistTo: string;
  onOutput: (line: string) => void;
  /** Called with the pid of wrangler dev (its process group's leader) as soon as it runs. */
  onSpawn?: (pid: number) => void;
  /** Run the Container classes in real containers (needs a Docker engine; see scripts/containers). */
  containers: boolean;
  /** More environment of wrangler dev itself (its docker command, the sidecar image). */
  env?: Record<string, string>;
}

/**
 * Runs `wrangler dev` (workerd with every Durable Object) in its own process group,
 * so stopping it also stops workerd, and waits until `/api/health` answers.
 */
export async function startWranglerDev(options: WranglerOptions): Promise<WranglerDev> {
  writeFileSync(
    options.envFile,
    `${Object.entries(options.vars)
      .map(([k, v]) => `${k}=${dotenvValue(k, v)}`)
      .join("\n")}\n`,
    { mode: 0o600 },
  );
  const child = spawn(
    process.execPath,
    [
      `${ROOT}/node_modules/wrangler/bin/wrangler.js`,
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(options.port),
      "--inspector-port",
      String(options.inspectorPort),
      "--env-file",
      options.envFile,
      "--persist-to",
      options.persistTo,
      "--show-interactive-dev-session=false",
      `--enable-containers=${options.containers}`,
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        NO_COLOR: "1",
        FORCE_COLOR: "0",
        // wrangler dev's DevTools proxy forwards every Network event of the Worker (one per
        // chunk of every event stream) to wrangler as its own HTTP request: a run streamed to
        // a hundred subscribers made it hold thousands of sockets, and at 300 workerd ran out
        // of descriptors. wrangler has no flag to turn the proxy off; it stays off when this
        // variable is set. Logs still arrive (workerd's structured logs).
        VSCODE_INSPECTOR_OPTIONS: process.env.VSCODE_INSPECTOR_OPTIONS ?? "{}",
        // wrangler dev records a trace of every invocation (each fetch, storage call and alarm)
        // into a local store, through a tail worker on workerd's one JavaScript thread: about a
        // sixth of that thread's CPU in a burst of schedule fires (decision 0041). Off unless
        // the developer asks for it with X_LOCAL_OBSERVABILITY=true.
        X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
        ...options.env,
      },
    },
  );
  if (child.pid) options.onSpawn?.(child.pid);
  readLines(child, options.onOutput);
  const url = `http://127.0.0.1:${options.port}`;
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`wrangler dev exited early (code ${code})`))));
  const stop = () => stopGroup(child);
  try {
    await Promise.race([waitForHealth(url), exited]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, child, stop };
}

async function waitForHealth(url: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`wrangler dev did not answer ${url}/api/health within ${timeoutMs / 1000} s`);
}

/** SIGTERM to the whole process group, SIGKILL after a grace period. */
function stopGroup(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => signal("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, name);
      } catch {
        // already gone
      }
    };
    signal("SIGTERM");
  });
}

/**
 * A value as a .env file keeps it verbatim: single-quoted (dotenv reads those literally;
 * in double quotes it would keep a JSON value's backslashes). A value of several lines (a PEM
 * key) goes double-quoted with `\n` escapes, which dotenv turns back into line breaks.
 * Refuses what no quoting can carry.
 *
 * @example dotenvValue("DEFAULT_MODEL_PRICE", '{"input":1}') // `'{"input":1}'`
 * @example dotenvValue("GITHUB_APP_PRIVATE_KEY", "-----BEGIN…\nMII…") // `"-----BEGIN…\\nMII…"`
 */
function dotenvValue(name: string, value: string): string {
  if (value.includes("\n") && !/["\\$\r]/.test(value)) return `"${value.replaceAll("\n", "\\n")}"`;
  if (value.includes("'") || value.includes("\n")) throw new Error(`${name} cannot be passed to wrangler dev: it holds a quote or a line break`);
  return `'${value}'`;
}
