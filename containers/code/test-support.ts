/**
 * Test support for guilds-code's task commands: the command bundled as the image runs it, a
 * bare repository as the remote (file://), and plain git for the test's own steps.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";

const exec = promisify(execFile);

/** Bundles guilds-code into `dir`. */
export async function bundleCode(dir: string): Promise<string> {
  const outfile = join(dir, "guilds-code.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./main.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    target: "node24",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}

/** Runs the bundle; → its exit code and the JSON it printed. */
export function runCode(bundle: string, args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = { unparsed: stdout };
      }
      resolve({ code, json, stderr });
    });
  });
}

/** git as a person at the keyboard would run it (the repository's configuration and hooks apply). */
export async function plainGit(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await exec("git", args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: tmpdir(),
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_TERMINAL_PROMPT: "0",
        GIT_AUTHOR_NAME: "Agent",
        GIT_AUTHOR_EMAIL: "agent@example.test",
        GIT_COMMITTER_NAME: "Agent",
        GIT_COMMITTER_EMAIL: "agent@example.test",
      },
      maxBuffer: 16 << 20,
    });
    return stdout.trimEnd();
  } catch (error) {
    throw new Error(String((error as { stderr?: string }).stderr ?? error));
  }
}

export async function tempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}
