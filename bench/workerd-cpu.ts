import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { WebSocket } from "ws";

/**
 * What workerd itself spends, for benches whose wall times the machine's load hides: the CPU
 * time of a local stack's workerd, and a CPU profile of its Worker's isolate (Linux only).
 *
 * @example
 *   const pids = workerdPids(stateDir);
 *   const before = cpuMs(pids); ...; const perStep = (cpuMs(pids) - before) / steps;
 */

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

/** The pids of the workerd processes under the wrangler dev that persists into `stateDir` (none off Linux). */
export function workerdPids(stateDir: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const procs = entries.map((name) => {
    const stat = read(`/proc/${name}/stat`);
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return { pid: Number(name), ppid, comm, cmdline: read(`/proc/${name}/cmdline`) };
  });
  const ours = new Set(procs.filter((p) => p.cmdline.includes("wrangler") && p.cmdline.includes(stateDir)).map((p) => p.pid));
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (!ours.has(p.pid) && ours.has(p.ppid)) {
        ours.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.filter((p) => ours.has(p.pid) && p.comm.startsWith("workerd")).map((p) => p.pid);
}

/** The time every thread of `pids` has spent on a CPU so far, in ms (schedstat counts ns). */
export function cpuMs(pids: number[]): number {
  let ns = 0;
  for (const pid of pids) {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      // gone
    }
    for (const tid of tids) ns += Number(read(`/proc/${pid}/task/${tid}/schedstat`).split(" ")[0] || 0);
  }
  return ns / 1e6;
}

/**
 * Every thread's CPU so far, in ms, keyed `process/thread (pid)`: over an interval, a thread
 * near 100 % of one core is a limit no spare core can lift (workerd's, the proxy's or the
 * mock model's one JavaScript thread).
 */
export function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone
    }
    const process = read(`/proc/${pid}/comm`).trim();
    for (const tid of tids) {
      // utime and stime, in ticks of 10 ms: schedstat lags for a thread that is seldom switched out.
      const fields = read(`/proc/${pid}/task/${tid}/stat`).split(") ")[1]?.split(" ") ?? [];
      const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
      if (ticks > 0) out.set(`${process}/${read(`/proc/${pid}/task/${tid}/comm`).trim()} (${pid})`, ticks * 10);
    }
  }
  return out;
}

/** The `count` threads that used the most CPU between two `threadCpu` readings, as % of one core over `wallMs`. */
export function busiestThreads(before: Map<string, number>, after: Map<string, number>, wallMs: number, count = 6): string[] {
  return [...after]
    .map(([name, ms]) => [name, ms - (before.get(name) ?? 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => `${name} ${((100 * ms) / wallMs).toFixed(0)} %`);
}

/**
 * The machine's CPU so far, from /proc/stat: `busyMs` over all cores (every process of the
 * stack, and anything else running), `cores` how many. Over an interval, busy ÷ (wall × cores)
 * says whether the machine, not only workerd, was the limit.
 */
export function machineCpu(): { busyMs: number; cores: number } {
  const lines = read("/proc/stat").split("\n");
  const total = lines[0]?.split(/\s+/).slice(1).map(Number) ?? [];
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
  const busy = total.reduce((sum, ticks, i) => (i === 3 || i === 4 || i > 7 ? sum : sum + ticks), 0);
  // USER_HZ is 100 on Linux: a tick is 10 ms.
  return { busyMs: busy * 10, cores: lines.filter((l) => /^cpu\d/.test(l)).length };
}

/** A session on the inspector of `worker`'s isolate (wrangler's name for it) in one of `pids`. */
async function inspect(pids: number[], worker: string): Promise<{ send(method: string, params?: object): Promise<any>; close(): void }> {
  const ws = new WebSocket(await inspectorUrl(pids, worker));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let id = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  return {
    send: (method, params = {}) =>
      new Promise<any>((resolve) => {
        waiting.set(++id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/**
 * Starts the V8 sampling profiler of the isolate of `worker` in one of `pids`, through
 * workerd's own inspector. `stop` returns the `.cpuprofile` JSON.
 */
export async function profileWorker(pids: number[], worker: string, intervalUs = 100): Promise<{ stop(): Promise<unknown> }> {
  const session = await inspect(pids, worker);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: intervalUs });
  await session.send("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.send("Profiler.stop");
      session.close();
      return profile;
    },
  };
}

/**
 * The memory of `worker`'s isolate that its 128 MB limit counts, read through the inspector:
 * `usedMiB` the JS heap not yet collected plus the ArrayBuffers' backing stores (where a
 * Uint8Array's bytes live, outside the JS heap), `totalMiB` what V8 has reserved for the heap.
 */
export async function isolateHeap(
  pids: number[],
  worker: string,
): Promise<{ read(): Promise<{ usedMiB: number; buffersMiB: number; totalMiB: number }>; collectGarbage(): Promise<void>; close(): void }> {
  const session = await inspect(pids, worker);
  return {
    async collectGarbage() {
      await session.send("HeapProfiler.collectGarbage");
    },
    async read() {
      const usage = (await session.send("Runtime.getHeapUsage")) as { usedSize: number; totalSize: number; backingStorageSize?: number };
      const buffers = usage.backingStorageSize ?? 0;
      return { usedMiB: (usage.usedSize + buffers) / 2 ** 20, buffersMiB: buffers / 2 ** 20, totalMiB: usage.totalSize / 2 ** 20 };
    },
    close: () => session.close(),
  };
}
/** The inspector's WebSocket of `worker`: workerd listens on a port of its own choosing, so each of its ports is asked. */
async function inspectorUrl(pids: number[], worker: string): Promise<string> {
  const listening = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" }).split("\n");
  for (const pid of pids) {
    for (const line of listening.filter((l) => l.includes(`pid=${pid},`))) {
      const port = /127\.0\.0\.1:(\d+)/.exec(line)?.[1];
      if (!port) continue;
      const targets = (await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(2_000) })
        .then((r) => r.json())
        .catch(() => null)) as Array<{ id: string; webSocketDebuggerUrl: string }> | null;
      const target = Array.isArray(targets) ? targets.find((t) => t.id === `core:user:${worker}`) : undefined;
      if (target) return target.webSocketDebuggerUrl;
    }
  }
  throw new Error(`no inspector of ${worker} in workerd ${pids.join(", ")}`);
}
