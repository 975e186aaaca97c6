import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * What the operating system says about a running process, enough to tell whether a pid
 * written down earlier still names the same process: pids are reused, so a pid alone
 * never is proof. Linux answers from /proc; elsewhere `ps` does.
 */
export interface ProcessIdentity {
  pid: number;
  /** When the process started (clock ticks since boot on Linux, `ps` lstart elsewhere). */
  started: string;
  /** Its arguments, argv[0] first. */
  argv: string[];
}

const PROC = existsSync("/proc/self/stat");

/** Whether a process with this pid exists (a zombie counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !PROC || statFields(pid)?.[0] !== "Z";
}

/**
 * The identity of a live process, or null when there is none.
 *
 * @example identify(process.pid)?.argv[0] // "/usr/bin/node"
 */
export function identify(pid: number): ProcessIdentity | null {
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return null;
  if (PROC) {
    const fields = statFields(pid);
    const argv = readText(`/proc/${pid}/cmdline`)?.split("\0").filter(Boolean);
    if (!fields || !argv) return null;
    return { pid, started: fields[19]!, argv };
  }
  try {
    const line = execFileSync("ps", ["-p", String(pid), "-o", "lstart=,args="], { encoding: "utf8" }).trim();
    // lstart is a fixed 24-character date ("Mon Nov 30 16:20:44 2026").
    return { pid, started: line.slice(0, 24), argv: line.slice(24).trim().split(/\s+/) };
  } catch {
    return null;
  }
}

/** Whether `now` is still the process recorded as `then` (same pid, start time and arguments). */
export function sameProcess(then: ProcessIdentity, now: ProcessIdentity | null): boolean {
  return !!now && now.pid === then.pid && now.started === then.started && now.argv.join("\0") === then.argv.join("\0");
}

/** The working directory of a process, when the system lets us read it. */
export function workingDirectory(pid: number): string | null {
  try {
    return PROC ? readlinkSync(`/proc/${pid}/cwd`) : null;
  } catch {
    return null;
  }
}

/** The live members of a process group (Linux only; elsewhere the leader stands for the group). */
export function groupMembers(pgid: number): ProcessIdentity[] {
  if (!PROC) return [identify(pgid)].filter((p): p is ProcessIdentity => !!p);
  const members: ProcessIdentity[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || statFields(pid)?.[2] !== String(pgid)) continue;
    const found = identify(pid);
    if (found) members.push(found);
  }
  return members;
}

/** Waits until the process is gone; false when it outlived the timeout. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** Fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, ...]; index 19 is the start time. */
function statFields(pid: number): string[] | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  // The command name is in parentheses and may itself contain spaces or parentheses.
  return stat
    .slice(stat.lastIndexOf(")") + 2)
    .trim()
    .split(" ");
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Feeds each non-blank line a child prints (stdout and stderr) to `onLine`. */
export function readLines(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = "";
    stream?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) onLine(line.trimEnd());
    });
  }
}
