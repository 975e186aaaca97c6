/**
 * The forge's CI: at a push of a commit that has `.forge/ci.sh` (to any branch but the
 * default one, like an Actions `on: push` workflow), a check run `ci` starts `in_progress` on
 * the commit and the script runs in a throwaway container: the lite sandbox image on the
 * local engine, no network, memory, CPU and process limits, removed when done, and nothing of
 * this machine mounted. The commit goes in as `git archive` on the container's stdin and is
 * unpacked there: the script is an agent's code and must never run on the developer's
 * machine. Past the time limit the container is killed and the run is `timed_out`;
 * otherwise exit 0 is `success` and anything else `failure`, with the last 64 KiB of the
 * script's output as the run's text. Without a usable engine (or image) CI is off and the
 * forge says so once; pushes work as before.
 *
 * @example
 *   const ci = new Ci({ state, root, events, appSlug, log });
 *   await ci.pushed("acme/app", [{ branch: "fix", sha }]); // the run exists (in_progress)
 *   await ci.idle();                                       // and has completed
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { CheckOutput, CheckRun } from "./check-state";
import type { ForgeEvents } from "./events";
import { readFileAt, repoDir } from "./repos";
import type { ForgeState } from "./state";

/** The lite sandbox image as the local stack builds it (scripts/containers/first-start.ts). */
export const CI_IMAGE = "guilds-local/litesandbox:latest";
export const DEFAULT_CI_TIMEOUT_S = 300;
export const CI_SCRIPT = ".forge/ci.sh";
const OUTPUT_BYTES = 64 * 1024;
/** Unpack the commit from stdin, then run its script; the image's own entrypoint is not used. */
const IN_CONTAINER = `mkdir -p /tmp/ci && cd /tmp/ci && tar -x --no-same-owner -f - && exec sh ${CI_SCRIPT}`;

export interface CiOptions {
  /** false: no CI at all (nothing probed). Default: on when the engine and the image answer. */
  enabled?: boolean;
  /** Why it is not enabled, for the log (e.g. the stack's containers are off). */
  reason?: string;
  /** The image (default CI_IMAGE). */
  image?: string;
  timeoutSeconds?: number;
}

export interface CiContext {
  state: ForgeState;
  root: string;
  events: ForgeEvents;
  appSlug: string;
  log: (line: string) => void;
  /** Told when a run completed (the forge saves its state). */
  changed?: () => void;
}

export class Ci {
  timeoutSeconds: number;
  /** Why CI is off, or null once the engine and image answered. */
  readonly off: Promise<string | null>;
  private readonly image: string;
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: CiContext,
    options: CiOptions = {},
  ) {
    this.image = options.image ?? CI_IMAGE;
    this.timeoutSeconds = options.timeoutSeconds ?? DEFAULT_CI_TIMEOUT_S;
    this.off = (options.enabled === false ? Promise.resolve(options.reason ?? "turned off") : engineProblem(this.image)).then((reason) => {
      if (reason) ctx.log(`CI is off: ${reason}; pushes are not checked`);
      return reason;
    });
  }

  /**
   * The pushed branches' commits that have the script get a run `in_progress` (resolved once
   * it exists); the script then runs in the background.
   */
  async pushed(fullName: string, updates: Array<{ branch: string; sha: string }>): Promise<CheckRun[]> {
    if (await this.off) return [];
    const runs: CheckRun[] = [];
    for (const { branch, sha } of updates) {
      if ((await readFileAt(this.ctx.root, fullName, sha, CI_SCRIPT)) === null) continue;
      const run = this.ctx.state.checks.start({ full_name: fullName, name: "ci", head_sha: sha, head_branch: branch });
      this.ctx.events.emit("check_run", "created", fullName, this.bot(), { check_run: this.ctx.events.checkRun(run) });
      runs.push(run);
      const name = `forge-ci-${randomBytes(6).toString("hex")}`;
      const job = this.execute(run, name).finally(() => this.running.delete(name));
      this.running.set(name, job);
    }
    return runs;
  }

  /** Settles when every run started so far has completed. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()]);
  }

  /** Kills the containers still running (the forge is closing); their runs complete cancelled. */
  async stop(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => docker(["kill", name])));
    await this.idle();
  }

  private bot(): string {
    return `${this.ctx.appSlug}[bot]`;
  }

  private async execute(run: CheckRun, name: string): Promise<void> {
    const started = Date.now();
    const result = await runInContainer(repoDir(this.ctx.root, run.full_name), run.head_sha, this.image, name, this.timeoutSeconds * 1000);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    let conclusion: string;
    let output: CheckOutput;
    if (result.timedOut) {
      conclusion = "timed_out";
      output = {
        title: `ci.sh timed out after ${this.timeoutSeconds} s`,
        summary: `Killed after ${this.timeoutSeconds} s (the time limit).`,
        text: result.output,
      };
    } else {
      conclusion = result.code === 0 ? "success" : "failure";
      output = { title: `ci.sh exited ${result.code}`, summary: `Exit status ${result.code} after ${seconds} s.`, text: result.output };
    }
    const suite = this.ctx.state.checks.complete(run, conclusion, output);
    this.ctx.events.emit("check_run", "completed", run.full_name, this.bot(), { check_run: this.ctx.events.checkRun(run) });
    if (suite) this.ctx.events.emit("check_suite", "completed", run.full_name, this.bot(), { check_suite: this.ctx.events.checkSuite(suite) });
    this.ctx.changed?.();
  }
}

/** Why the engine cannot run CI (no docker, no image), or null. */
export async function engineProblem(image: string): Promise<string | null> {
  const info = await docker(["info", "--format", "{{.ServerVersion}}"]);
  if (info.code !== 0) return `no container engine answers (docker info: ${info.output.trim().split("\n").pop() ?? "no output"})`;
  const inspect = await docker(["image", "inspect", "--format", "{{.Id}}", image]);
  if (inspect.code !== 0) return `the image ${image} is absent (the stack's first start builds it)`;
  return null;
}

interface ContainerResult {
  code: number;
  output: string;
  timedOut: boolean;
}

/** `git archive <sha>` into a fresh container running the script; killed past `timeoutMs`. */
function runInContainer(gitDir: string, sha: string, image: string, name: string, timeoutMs: number): Promise<ContainerResult> {
  const args = [
    "run",
    "--rm",
    "-i",
    "--name",
    name,
    "--network",
    "none",
    "--memory",
    "1g",
    "--cpus",
    "1",
    "--pids-limit",
    "512",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--entrypoint",
    "/bin/sh",
    image,
    "-c",
    IN_CONTAINER,
  ];
  return new Promise((resolve) => {
    const archive = spawn("git", ["archive", "--format=tar", sha], { env: { ...process.env, GIT_DIR: gitDir }, stdio: ["ignore", "pipe", "ignore"] });
    const container = spawn("docker", args, { stdio: ["pipe", "pipe", "pipe"] });
    archive.stdout.pipe(container.stdin);
    container.stdin.on("error", () => {});
    let chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > 2 * OUTPUT_BYTES) {
        const all = Buffer.concat(chunks).subarray(-OUTPUT_BYTES);
        chunks = [all];
        size = all.length;
      }
    };
    container.stdout.on("data", keep);
    container.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void docker(["kill", name]);
    }, timeoutMs);
    const done = (code: number) => {
      clearTimeout(timer);
      archive.kill();
      resolve({ code, timedOut, output: Buffer.concat(chunks).subarray(-OUTPUT_BYTES).toString("utf8") });
    };
    container.once("error", (error) => {
      keep(Buffer.from(`docker: ${error.message}\n`));
      done(127);
    });
    container.once("close", (code) => done(code ?? 1));
  });
}

function docker(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("docker", args, { stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("error", (error) => resolve({ code: 127, output: error.message }));
    child.once("close", (code) => resolve({ code: code ?? 1, output }));
  });
}
