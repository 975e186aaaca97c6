import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { groupMembers, identify, type ProcessIdentity, sameProcess, waitForExit } from "./process-info";

/**
 * The processes a running stack owns, written down in its state folder so that the next
 * start of the same folder can end what a killed stack left behind (`kill -9` of
 * `npm start` leaves `wrangler dev` running in its own process group, holding the port).
 * Each entry carries the start time and arguments of its process: a pid that has since
 * been reused by another program never matches, so only our own leftovers are signalled.
 * Postgres is not listed: its own `postmaster.pid` serves that purpose (see postgres-server.ts).
 */
interface Recorded {
  /** The process that ran the stack. */
  owner: ProcessIdentity;
  children: Array<{ role: string; process: ProcessIdentity /** It leads its own process group. */; group: boolean }>;
}

const FILE = "processes.json";

/** The record of one running stack; every change is written at once. */
export class ProcessRecord {
  private readonly data: Recorded;

  constructor(private readonly stateDir: string) {
    this.data = { owner: identify(process.pid)!, children: [] };
    this.write();
  }

  /**
   * Adds a child; for a group leader, also the members its group has now (call again
   * once it started its own children, e.g. wrangler's workerd).
   */
  add(role: string, pid: number, options: { group?: boolean } = {}): void {
    const known = (p: number) => this.data.children.some((c) => c.process.pid === p);
    const leader = identify(pid);
    if (leader && !known(pid)) this.data.children.push({ role, process: leader, group: !!options.group });
    if (options.group) {
      for (const member of groupMembers(pid)) if (!known(member.pid)) this.data.children.push({ role, process: member, group: false });
    }
    this.write();
  }

  /** Forgets the record: the stack stopped everything it started. */
  remove(): void {
    rmSync(join(this.stateDir, FILE), { force: true });
  }

  private write(): void {
    const file = join(this.stateDir, FILE);
    writeFileSync(`${file}.tmp`, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  }
}

/** A start refused because a stack of the same state folder still runs. */
export class StackAlreadyRunning extends Error {
  constructor(readonly pid: number) {
    super(`a stack of this folder is already running (pid ${pid}); stop it first`);
  }
}

/**
 * The pid of the stack that wrote the record when that very process still runs (and is
 * not this one), else null: its children are then its own, not leftovers.
 */
export function liveOwner(recorded: Pick<Recorded, "owner">, now: (pid: number) => ProcessIdentity | null = identify): number | null {
  const { owner } = recorded;
  return owner.pid !== process.pid && sameProcess(owner, now(owner.pid)) ? owner.pid : null;
}

/**
 * Ends what an earlier stack of this state folder left running once its own process is
 * gone (`kill -9`, a closed terminal): every recorded child that is still the very process
 * recorded. A stack whose process still runs is left alone: this start is refused with
 * StackAlreadyRunning. Returns how many processes it signalled.
 *
 * @example await clearLeftovers(".local", console.log);
 */
export async function clearLeftovers(stateDir: string, log: (line: string) => void): Promise<number> {
  const file = join(stateDir, FILE);
  if (!existsSync(file)) return 0;
  let recorded: Recorded;
  try {
    recorded = JSON.parse(readFileSync(file, "utf8")) as Recorded;
  } catch {
    rmSync(file, { force: true });
    return 0;
  }
  const running = liveOwner(recorded);
  if (running !== null) throw new StackAlreadyRunning(running);
  let signalled = 0;
  for (const child of recorded.children ?? []) {
    if (!sameProcess(child.process, identify(child.process.pid))) continue;
    log(`stopping ${child.role} left running by an earlier stack (pid ${child.process.pid})`);
    await end(child.process.pid, child.group, 5_000);
    signalled++;
  }
  rmSync(file, { force: true });
  return signalled;
}

/** SIGTERM, then SIGKILL after the grace period; a group leader takes its whole group along. */
async function end(pid: number, group: boolean, graceMs: number): Promise<void> {
  const target = group ? -pid : pid;
  const send = (signal: NodeJS.Signals) => {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  };
  send("SIGTERM");
  if (!(await waitForExit(pid, graceMs))) {
    send("SIGKILL");
    await waitForExit(pid, 2_000);
  }
}
