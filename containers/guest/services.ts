/**
 * The box-level services the guest supervises: the desktop (Xvnc, websockify with noVNC) and
 * Chromium on it. Starting is idempotent and serialised; Chromium is stopped cleanly (SIGTERM,
 * so it writes its cookies and profile) before the home is archived or restored.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { chromiumArgs, type ServicesConfig, vncPort, websockifyArgs, xvncArgs } from "./services-config";

type ServiceName = "xvnc" | "websockify" | "chromium";

export class ServiceFailed extends Error {}

export interface StartResult {
  browser: boolean;
  /** The services this call started (empty when everything already ran). */
  started: ServiceName[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.setTimeout(500);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function cdpAnswers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(1_000) });
    return res.ok;
  } catch {
    return false;
  }
}

const alive = (child: ChildProcess | undefined): child is ChildProcess => child !== undefined && child.exitCode === null && child.signalCode === null;

/** Signals a service's whole process group (it runs detached as its own group). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

/** Asks Chromium over CDP to close (`Browser.close`). → whether the request was sent. */
async function closeOverCdp(port: number): Promise<boolean> {
  try {
    const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(2_000) })).json()) as {
      webSocketDebuggerUrl?: string;
    };
    if (!version.webSocketDebuggerUrl) return false;
    const socket = new WebSocket(version.webSocketDebuggerUrl);
    const opened = await Promise.race([
      new Promise<boolean>((resolve) => {
        socket.addEventListener("open", () => resolve(true));
        socket.addEventListener("error", () => resolve(false));
      }),
      sleep(2_000).then(() => false),
    ]);
    if (!opened) return false;
    socket.send(JSON.stringify({ id: 1, method: "Browser.close" }));
    return true;
  } catch {
    return false;
  }
}

export class Services {
  private readonly children = new Map<ServiceName, ChildProcess>();
  private language: string | undefined;
  /** Serialises start and stop: concurrent calls wait for each other. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: ServicesConfig,
    /** The environment services inherit (the guest's, its own settings removed). */
    private readonly env: NodeJS.ProcessEnv,
    private readonly home: string,
  ) {}

  /** The browser's language while Chromium runs, else undefined. */
  browserLanguage(): string | undefined {
    return alive(this.children.get("chromium")) ? this.language : undefined;
  }

  start(browser: boolean, language: string): Promise<StartResult> {
    return this.serialised(async () => {
      const started: ServiceName[] = [];
      if (!browser) return { browser, started };
      if (await this.ensure("xvnc", this.config.xvncBin, xvncArgs(this.config), () => portAnswers(vncPort(this.config)))) started.push("xvnc");
      const novnc = () => portAnswers(this.config.novncPort);
      if (await this.ensure("websockify", this.config.websockifyBin, websockifyArgs(this.config), novnc)) started.push("websockify");
      if (alive(this.children.get("chromium")) && this.language !== language) await this.stopChromium();
      this.language = language;
      if (!alive(this.children.get("chromium"))) await this.clearStaleProfileLock();
      if (await this.ensure("chromium", this.config.chromiumBin, chromiumArgs(this.config, language), () => cdpAnswers(this.config.cdpPort), 30_000)) {
        started.push("chromium");
      }
      return { browser, started };
    });
  }

  /** Stops Chromium (if this guest started it) and waits until it has exited. → whether it ran. */
  stopBrowser(): Promise<boolean> {
    return this.serialised(() => this.stopChromium());
  }

  /** Ends every service (the guest is shutting down). */
  stopAll(): void {
    for (const child of this.children.values()) if (alive(child)) signalGroup(child, "SIGTERM");
  }

  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Starts a service unless it runs; waits until `ready`. → whether it was started now. */
  private async ensure(name: ServiceName, bin: string, args: string[], ready: () => Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
    if (alive(this.children.get(name))) return false;
    mkdirSync(this.config.logDir, { recursive: true });
    const log = join(this.config.logDir, `${name}.log`);
    const fd = openSync(log, "a");
    let child: ChildProcess;
    try {
      child = spawn(bin, args, {
        cwd: this.home,
        env: { ...this.env, DISPLAY: `:${this.config.display}`, HOME: this.home },
        stdio: ["ignore", fd, fd],
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
    const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
    this.children.set(name, child);
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const failed = await Promise.race([spawnError, sleep(100).then(() => undefined)]);
      if (failed) throw new ServiceFailed(`${name} could not start: ${failed.message}`);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new ServiceFailed(`${name} exited with ${child.exitCode ?? child.signalCode} while starting (see ${log})`);
      }
      if (await ready()) return true;
    }
    signalGroup(child, "SIGKILL");
    throw new ServiceFailed(`${name} did not become ready within ${timeoutMs / 1000} s (see ${log})`);
  }

  /**
   * Called before Chromium is closed: the browser driver drops its CDP connection, so its
   * next action attaches to the new Chromium instead of failing on a dead socket.
   */
  beforeBrowserStop: () => Promise<void> = async () => {};

  private async stopChromium(): Promise<boolean> {
    const child = this.children.get("chromium");
    if (!alive(child)) return false;
    await this.beforeBrowserStop().catch(() => {});
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const within = (ms: number) => Promise.race([exited.then(() => true), sleep(ms).then(() => false)]);
    // Closed as a user closes it, Chromium writes its cookie store before exiting; on a
    // signal it exits at once and cookies set in the last half minute are lost.
    const closed = (await closeOverCdp(this.config.cdpPort)) && (await within(10_000));
    if (!closed) {
      child.kill("SIGTERM");
      if (!(await within(10_000))) signalGroup(child, "SIGKILL");
      await exited;
    }
    // Helpers share the group; none may keep the profile open once this returns.
    const deadline = performance.now() + 3_000;
    while (groupAlive(child) && performance.now() < deadline) await sleep(50);
    signalGroup(child, "SIGKILL");
    return true;
  }

  /**
   * Chromium refuses a profile whose lock names another host, as a profile restored from a
   * previous box would; no Chromium of ours runs here, so the lock is stale.
   */
  private async clearStaleProfileLock(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.config.profileDir);
    } catch {
      return;
    }
    await Promise.all(names.filter((n) => n.startsWith("Singleton")).map((n) => rm(join(this.config.profileDir, n), { force: true })));
  }
}
