/**
 * Busy startup CPU from the `.cpuprofile` that `wrangler check startup` writes.
 *
 * The profile is V8's sampling profile of one isolate while it evaluates the Worker's main
 * module (the Worker and every Durable Object class share that module, so this is what
 * each cold start pays). Each sample names the call-tree node that was running; the time
 * between a sample and the next is charged to it, as Chrome DevTools does. Busy CPU is the
 * time of every node except `(idle)` (the isolate waiting: before the import starts and
 * while the profiler is being stopped) and `(program)` (workerd's own native work around
 * the isolate, not the Worker's code). `(garbage collector)` counts as busy: it is the cost
 * of what the module allocates at start.
 *
 * The deltas are wall-clock, so a loaded machine inflates them (a descheduled thread looks
 * busy); hence the budget is for the median of three runs on an idle machine.
 *
 * @example busyStartupMs({ nodes: [{ id: 1, callFrame: { functionName: "(idle)" } }, { id: 2, callFrame: { functionName: "init" } }], samples: [2, 1], timeDeltas: [0, 5000], startTime: 0, endTime: 9000 }) // 5
 */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  /** Microseconds since the previous sample (the first: since startTime). */
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const NOT_BUSY = new Set(["(idle)", "(program)"]);

/** Busy CPU of a startup profile, in milliseconds (see the module comment for the method). */
export function busyStartupMs(profile: CpuProfile): number {
  const name = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let sampleTime = profile.startTime;
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    sampleTime += profile.timeDeltas[i] ?? 0;
    const next = i + 1 < profile.samples.length ? sampleTime + (profile.timeDeltas[i + 1] ?? 0) : profile.endTime;
    if (!NOT_BUSY.has(name.get(profile.samples[i]!) ?? "")) busyUs += Math.max(0, next - sampleTime);
  }
  return busyUs / 1000;
}

/** Median of a non-empty list. @example median([3, 1, 2]) // 2 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
