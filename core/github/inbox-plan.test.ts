import { describe, expect, it } from "vitest";
import { planDeliveries, type UnhandledDelivery } from "./inbox-plan";

const limits = { sideBySide: 8, staleMs: 300_000 };
const pending = (id: string, key: string): UnhandledDelivery => ({ id, key, outcome: "pending", claimedAt: null });
const NOW = 1_000_000_000;

describe("planDeliveries", () => {
  it("ISSUE-33: deliveries of one pull request wait for the one before; other pull requests go side by side", () => {
    const rows = [
      pending("a1", "acme/app#1"),
      pending("a2", "acme/app#1"),
      pending("b1", "acme/app#2"),
      pending("c1", "acme/app@abc"),
      pending("b2", "acme/app#2"),
    ];
    expect(planDeliveries(rows, new Map(), NOW, limits)).toEqual({ start: ["a1", "b1", "c1"], reclaimAt: null });
    // a1 being acted on: a2 waits still; b1 done, so b2 goes.
    expect(
      planDeliveries(
        rows.slice(1).filter((r) => r.id !== "b1"),
        new Map([["a1", "acme/app#1"]]),
        NOW,
        limits,
      ).start,
    ).toEqual(["c1", "b2"]);
  });

  it("ISSUE-33: at most sideBySide at a time, counting those already being acted on, and a waiting key keeps its place", () => {
    const rows = Array.from({ length: 12 }, (_, i) => pending(`r${i}`, `acme/app#${i}`));
    expect(planDeliveries(rows, new Map(), NOW, limits).start).toHaveLength(8);
    const acting = new Map([
      ["x", "acme/app#99"],
      ["y", "acme/app#98"],
    ]);
    expect(planDeliveries(rows, acting, NOW, limits).start).toEqual(["r0", "r1", "r2", "r3", "r4", "r5"]);
  });

  it("ISSUE-33: a delivery left handling holds its key until 5 minutes after its claim, then is claimed again", () => {
    const recent: UnhandledDelivery = { id: "h1", key: "acme/app#1", outcome: "handling", claimedAt: NOW - 60_000 };
    const rows = [recent, pending("p1", "acme/app#1"), pending("p2", "acme/app#2")];
    expect(planDeliveries(rows, new Map(), NOW, limits)).toEqual({ start: ["p2"], reclaimAt: NOW - 60_000 + 300_000 });
    const stale = { ...recent, claimedAt: NOW - 300_001 };
    expect(planDeliveries([stale, ...rows.slice(1)], new Map(), NOW, limits)).toEqual({ start: ["h1", "p2"], reclaimAt: null });
  });
});
