/**
 * Running git for guilds-code: argument arrays (no shell), the agent's HOME, and none of the
 * caller's GIT_* variables, so a GIT_DIR or GIT_INDEX_FILE in the command's environment cannot
 * point a checkpoint at the wrong repository or index.
 */
import { spawn } from "node:child_process";

export const AGENT_HOME = "/home/agent";

export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
  /** stdout went past `maxStdoutBytes` and git was stopped. */
  overflowed: boolean;
}

export interface GitOptions {
  cwd?: string;
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
  /** Stop reading (and end git) once stdout holds more than this many bytes. */
  maxStdoutBytes?: number;
}

/** The environment git runs with: the process's own minus GIT_*, plus `extra`. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("GIT_")) env[key] = value;
  return { ...env, HOME: AGENT_HOME, LC_ALL: "C", ...extra };
}

/** Runs git in its own process group, so a timeout ends its helpers (remote-http, index-pack) too. */
export function git(args: string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: options.cwd, env: gitEnv(options.env), detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = "";
    let timedOut = false;
    let overflowed = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const onTimeout = () => {
      timedOut = true;
      killGroup();
    };
    const timer = options.timeoutMs ? setTimeout(onTimeout, options.timeoutMs) : undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      if (overflowed) return;
      out.push(chunk);
      outBytes += chunk.length;
      if (options.maxStdoutBytes !== undefined && outBytes > options.maxStdoutBytes) {
        overflowed = true;
        killGroup();
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr, timedOut, overflowed });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");
  });
}

/** Runs git and returns its trimmed stdout, throwing with git's message on failure. */
export async function gitText(args: string[], options: GitOptions = {}): Promise<string> {
  const result = await git(args, options);
  if (result.code !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  return result.stdout.toString("utf8").trim();
}

/** Like gitText, but undefined instead of an error (a ref or config that is not there). */
export async function gitMaybe(args: string[], options: GitOptions = {}): Promise<string | undefined> {
  const result = await git(args, options);
  return result.code === 0 ? result.stdout.toString("utf8").trim() : undefined;
}
