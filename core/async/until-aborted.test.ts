import { describe, expect, it } from "vitest";
import { untilAborted } from "./until-aborted";

describe("untilAborted", () => {
  it("CANCEL-001: answers with the work, or rejects as soon as the signal aborts while the work never ends", async () => {
    expect(await untilAborted(Promise.resolve(7), new AbortController().signal)).toBe(7);
    const controller = new AbortController();
    const hung = untilAborted(new Promise(() => {}), controller.signal);
    controller.abort();
    await expect(hung).rejects.toMatchObject({ name: "AbortError" });
    const timedOut = untilAborted(new Promise(() => {}), AbortSignal.timeout(10));
    await expect(timedOut).rejects.toMatchObject({ name: "TimeoutError" });
  });
});
