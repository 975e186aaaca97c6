import { describe, expect, it } from "vitest";
import { busyStartupMs, type CpuProfile, median } from "./startup-cpu";

/** A profile with one node per name; `run` lists the sampled names, `deltas` their gaps in µs. */
function profile(run: string[], deltas: number[]): CpuProfile {
  const names = [...new Set(run)];
  return {
    nodes: names.map((functionName, i) => ({ id: i + 1, callFrame: { functionName } })),
    samples: run.map((n) => names.indexOf(n) + 1),
    timeDeltas: deltas,
  };
}

describe("busy startup CPU (bundle and startup budget)", () => {
  it("HARDEN: counts module, library and GC samples at the sampling interval, not idle or workerd's own", () => {
    const run = ["(idle)", "(anon)", "init", "(garbage collector)", "(program)", "(idle)"];
    expect(busyStartupMs(profile(run, [0, 1000, 1000, 1000, 1000, 1000]))).toBe(3);
  });

  it("HARDEN: a thread descheduled between two samples does not count as busy for the gap", () => {
    // Two samples came late (another process held the core; the sampler starved too):
    // each still stands for one interval.
    const run = ["(anon)", "init", "init", "init", "(idle)"];
    expect(busyStartupMs(profile(run, [0, 1000, 100_000, 4000, 1000]))).toBe(4);
  });

  it("HARDEN: the median of three runs", () => {
    expect(median([73, 41, 52])).toBe(52);
    expect(median([4, 2])).toBe(3);
  });
});
