/**
 * Finding every process a command started, also the ones that left its process group:
 * `setsid`, a double fork or `nohup` puts a process in another group (or session) and
 * reparents it to init, out of reach of a group signal. Each command runs with its id in
 * GUILDS_EXEC_ID, which every descendant inherits, so a scan of /proc finds them all.
 *
 * A process that clears its own environment (`env -i`) before starting another is not
 * found; a cgroup per command would find it, but the box cannot create cgroups.
 */
import { readdir, readFile } from "node:fs/promises";

/** The variable carrying the command's id; GUILDS_* names are reserved for secrets (OP-SEC-3). */
export const EXEC_MARKER = "GUILDS_EXEC_ID";

const NUL = Buffer.from([0]);

/**
 * The pids whose initial environment holds `GUILDS_EXEC_ID=<id>` (or `<variable>=<id>`: a
 * command marks what it starts itself the same way). Processes that vanish or cannot be read
 * during the scan are skipped.
 *
 * @example await markedProcesses("0b6c…") // [4121, 4130]
 */
export async function markedProcesses(id: string, procDir = "/proc", variable = EXEC_MARKER): Promise<number[]> {
  const needle = Buffer.from(`\0${variable}=${id}\0`);
  const pids = (await readdir(procDir).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).map(Number);
  const found = await Promise.all(
    pids.map(async (pid) => {
      if (pid === process.pid) return null;
      try {
        // A NUL in front, so the first variable matches like the others.
        const environ = Buffer.concat([NUL, await readFile(`${procDir}/${pid}/environ`)]);
        return environ.includes(needle) ? pid : null;
      } catch {
        return null;
      }
    }),
  );
  return found.filter((pid): pid is number => pid !== null);
}

/** Sends `signal` to every marked process; returns how many it reached. */
export async function signalMarked(id: string, signal: NodeJS.Signals, variable = EXEC_MARKER): Promise<number> {
  let reached = 0;
  for (const pid of await markedProcesses(id, "/proc", variable)) {
    try {
      process.kill(pid, signal);
      reached++;
    } catch {
      // ESRCH: it ended meanwhile.
    }
  }
  return reached;
}

/**
 * SIGKILL to every marked process, again until a scan finds none: a process forking
 * between the scan and the signal leaves a child the next scan finds.
 */
export async function killMarked(id: string, rounds = 10, variable = EXEC_MARKER): Promise<void> {
  for (let i = 0; i < rounds; i++) if ((await signalMarked(id, "SIGKILL", variable)) === 0) return;
}
