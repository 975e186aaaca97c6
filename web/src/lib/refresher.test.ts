import { describe, expect, it, vi } from "vitest";
import { ApiError } from "./api-client";
import { createRefresher } from "./refresher";

/** A load the test answers by hand, in any order. */
function manualLoads() {
  const pending: Array<(value: string) => void> = [];
  let calls = 0;
  return {
    load: () => {
      calls++;
      return new Promise<string>((resolve) => pending.push(resolve));
    },
    answer: (i: number, value: string) => pending[i]!(value),
    get calls() {
      return calls;
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("reloading a view", () => {
  it("UI: one request at a time; refreshes while one is on its way collapse into one more", async () => {
    const loads = manualLoads();
    const applied: string[] = [];
    const r = createRefresher(loads.load, (v) => applied.push(v));
    const done = r.refresh();
    r.refresh();
    r.refresh();
    expect(loads.calls).toBe(1);
    loads.answer(0, "a");
    await tick();
    expect(loads.calls).toBe(2);
    loads.answer(1, "b");
    await done;
    expect(applied).toEqual(["a", "b"]);
  });

  it("UI: an answer to a request sent before the user's action is dropped and asked again", async () => {
    const loads = manualLoads();
    const applied: string[] = [];
    const r = createRefresher(loads.load, (v) => applied.push(v));
    const done = r.refresh();
    // The user cancels the task; the view shows the cancel's own answer.
    r.changed();
    loads.answer(0, "running (read before the cancel)");
    await tick();
    expect(applied).toEqual([]);
    expect(loads.calls).toBe(2);
    loads.answer(1, "cancelled");
    await done;
    expect(applied).toEqual(["cancelled"]);
  });

  it("UI: a failed load is reported and the next refresh tries again; nothing applies once stopped", async () => {
    const errors: unknown[] = [];
    const applied: string[] = [];
    let fail = true;
    const r = createRefresher(
      async () => {
        if (fail) throw new Error("offline");
        return "ok";
      },
      (v) => applied.push(v),
      (e) => errors.push(e),
    );
    await r.refresh();
    expect(errors).toHaveLength(1);
    fail = false;
    await r.refresh();
    expect(applied).toEqual(["ok"]);
    r.stop();
    await r.refresh();
    expect(applied).toEqual(["ok"]);
  });

  it("HARDEN-2: a load the database did not answer is made again after its Retry-After; stop() ends that too", async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const errors: unknown[] = [];
      const applied: string[] = [];
      const r = createRefresher(
        async () => {
          if (++calls === 1) throw new ApiError(503, "database.unavailable", "not answering", { retry_after_s: 2 });
          return "tasks";
        },
        (v) => applied.push(v),
        (e) => errors.push(e),
      );
      await r.refresh();
      expect(errors).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1_999);
      expect(calls).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toBe(2);
      expect(applied).toEqual(["tasks"]);

      let asked = 0;
      const stopped = createRefresher(
        () => {
          asked++;
          return Promise.reject(new ApiError(503, "database.unavailable", "not answering"));
        },
        () => {},
      );
      await stopped.refresh();
      stopped.stop();
      await vi.advanceTimersByTimeAsync(30_000);
      expect(asked).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
