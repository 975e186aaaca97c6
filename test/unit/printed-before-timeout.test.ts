import { describe, expect, it } from "vitest";
import { printedBeforeTimeout } from "./printed-before-timeout";

describe("timeout tests on a loaded machine", () => {
  it("OP-SBX-9: a run that did not print in time is tried again with the next timeout; one that never prints is returned for the test to fail on", async () => {
    const tried: number[] = [];
    const slowStart = await printedBeforeTimeout(
      async (ms) => {
        tried.push(ms);
        return ms >= 10_000 ? "started\n" : "";
      },
      (output) => output.length > 0,
    );
    expect(slowStart).toEqual({ result: "started\n", timeoutMs: 10_000 });
    expect(tried).toEqual([5_000, 10_000]);

    const silent = await printedBeforeTimeout(
      async () => "",
      (output) => output.length > 0,
      [1, 2, 3],
    );
    expect(silent).toEqual({ result: "", timeoutMs: 3 });
  });
});
