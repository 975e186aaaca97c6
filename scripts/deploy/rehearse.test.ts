import { describe, expect, it } from "vitest";
import { rehearsalProblems, rehearse } from "./rehearse";

describe("release rehearsal against local stand-ins", () => {
  // Five runs of the deploy and rollback scripts, each starting wrangler's config reader and the
  // wrangler stand-in a few times: tens of seconds on a busy machine.
  it("a gradual deploy reaches 100% in steps; a failed smoke run or degraded health between steps rolls back; rollback returns to the version before", {
    timeout: 300_000,
  }, async () => {
    const r = await rehearse();
    expect(rehearsalProblems(r)).toEqual([]);
    expect(r.good.traffic).toEqual(["good@10% initial@90%", "good@50% initial@50%", "good@100%"]);
    expect(r.smokeFails.traffic).toEqual(["smoke-fails@10% good@90%", "good@100%"]);
    expect(r.smokeFails.output).toMatch(/at 10%, smoke run: run \S+ ended with model\.error\. Rolled back/);
    expect(r.degraded.output).toMatch(/at 10%, health: health status is degraded/);
    expect(r.rollbackDryRun.output).toContain("--dry-run: nothing changed");
    expect(r.finalServing).toBe("initial@100%");
  });
});
