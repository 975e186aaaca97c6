/**
 * Busy startup CPU from the `.cpuprofile` that `wrangler check startup` writes.
 *
 * The profile is V8's sampling profile of one isolate while it evaluates the Worker's main
 * module (the Worker and every Durable Object class share that module, so this is what
 * each cold start pays). V8 samples the running thread about once per interval and names
 * the call-tree node it was in. Busy CPU is the number of samples in any node but `(idle)`
 * (the isolate waiting: before the import starts and while the profiler stops) and
 * `(program)` (workerd's native work around the isolate, not the Worker's code), times the
 * sampling interval. `(garbage collector)` counts as busy: it is the cost of what the
 * module allocates at start.
 *
 * Samples are counted rather than their time deltas summed because the deltas are
 * wall-clock: on a loaded machine a thread that was descheduled between two samples
 * shows one long delta (seen: 100 ms in one delta), which is not CPU the Worker used.
 * For the same reason the interval is the lower quartile of the deltas (about 1.08 ms,
 * V8's default of 1 ms plus overhead, whatever the load), not their median, which a
 * starved sampler thread stretches (seen: 3.8 ms). Load still adds a few samples, hence
 * the median of three runs.
 *
 * @example busyStartupMs({ nodes: [{ id: 1, callFrame: { functionName: "(idle)" } }, { id: 2, callFrame: { functionName: "init" } }], samples: [1, 2, 2, 1], timeDeltas: [0, 1000, 1000, 1000] }) // 2 (two busy samples, 1 ms apart)
 */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  /** Microseconds since the previous sample (the first: since the profile's start). */
  timeDeltas: number[];
}

const NOT_BUSY = new Set(["(idle)", "(program)"]);

/** Busy CPU of a startup profile, in milliseconds (see the module comment for the method). */
export function busyStartupMs(profile: CpuProfile): number {
  const name = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  const busySamples = profile.samples.filter((id) => !NOT_BUSY.has(name.get(id) ?? "")).length;
  const intervals = profile.timeDeltas.slice(1).sort((a, b) => a - b);
  if (intervals.length === 0) return 0;
  return (busySamples * intervals[Math.floor((intervals.length - 1) / 4)]!) / 1000;
}

/** Median of a non-empty list. @example median([3, 1, 2]) // 2 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
