import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Runs `npm start` as a newcomer would, in its own process group, and resolves once it
 * printed its Ready line.
 */
export function npmStart(env: Record<string, string>): Promise<{ child: ChildProcess; output: string[] }> {
  const child = spawn("npm", ["start"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not get ready:\n${output.join("")}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (/^Ready\./m.test(output.join(""))) {
        clearTimeout(timer);
        resolve({ child, output });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm start exited (${code}):\n${output.join("")}`)));
  });
}

/**
 * SIGTERM to the whole process group, as Ctrl-C (SIGINT) or a service manager
 * does, then waits until the stack has finished stopping (it removes stack.json last).
 */
export async function terminate(started: { child: ChildProcess; output: string[] }, stateDir: string): Promise<void> {
  process.kill(-started.child.pid!, "SIGTERM");
  const deadline = Date.now() + 30_000;
  while (existsSync(join(stateDir, "stack.json"))) {
    if (Date.now() > deadline) throw new Error(`the stack did not stop within 30 s:\n${started.output.join("").slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
