import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { freshAgent, T0 } from "../../../test/workerd/agent-object";
import type { AgentObject } from "../agent-object";
import { GenerationLock, HEARTBEAT, HEARTBEAT_MS, LEASE_MS } from "./generation-lock";

/** The lock's stored row, its active generation and the heartbeat deadline, as one snapshot. */
function observe(i: AgentObject) {
  const { lock, deadlines } = i.rooms.context;
  return {
    stored: lock.held()?.runId ?? null,
    active: lock.active?.runId ?? null,
    generation: lock.active?.generation ?? null,
    heartbeat: deadlines.get(HEARTBEAT)?.dueAt ?? null,
  };
}

describe("the generation lock: the stored row, the active generation and the heartbeat change together", () => {
  it("GEN-002: claim takes the row, marks the generation active and arms the heartbeat; a second claim is busy and changes nothing", async () => {
    const seen = await runInDurableObject(freshAgent(), async (i: AgentObject) => {
      i.now = () => T0;
      const first = await i.rooms.context.lock.claim("run-a", 2);
      const afterFirst = observe(i);
      const second = await i.rooms.context.lock.claim("run-b", 1);
      return { first: first.ok, afterFirst, second, afterSecond: observe(i) };
    });
    expect(seen.first).toBe(true);
    expect(seen.afterFirst).toEqual({ stored: "run-a", active: "run-a", generation: 2, heartbeat: T0 + HEARTBEAT_MS });
    expect(seen.second).toMatchObject({ ok: false, status: 409, code: "agent.busy" });
    expect(seen.afterSecond).toEqual(seen.afterFirst);
  });

  it("GEN-002: release by the holder frees the row and the active generation, settles `done` and disarms the heartbeat; another run's release changes nothing", async () => {
    const seen = await runInDurableObject(freshAgent(), async (i: AgentObject) => {
      i.now = () => T0;
      const { lock } = i.rooms.context;
      const claimed = await lock.claim("run-a", 1);
      if (!claimed.ok) throw new Error("not claimed");
      let settled = false;
      void claimed.done.then(() => (settled = true));
      await lock.release("run-x");
      const afterOther = { ...observe(i), settled };
      await lock.release("run-a");
      await Promise.resolve();
      return { afterOther, afterHolder: { ...observe(i), settled } };
    });
    expect(seen.afterOther).toMatchObject({ stored: "run-a", active: "run-a", settled: false });
    expect(seen.afterHolder).toEqual({ stored: null, active: null, generation: null, heartbeat: null, settled: true });
  });

  it("CHAIN-010: hand-over moves the row and the active generation to the continuation in one turn; the heartbeat stays armed", async () => {
    const seen = await runInDurableObject(freshAgent(), async (i: AgentObject) => {
      i.now = () => T0;
      const { lock } = i.rooms.context;
      const claimed = await lock.claim("run-a", 3);
      if (!claimed.ok) throw new Error("not claimed");
      let settled = false;
      void claimed.done.then(() => (settled = true));
      const wrong = (() => {
        try {
          lock.handOver("run-x", "run-b");
          return "passed";
        } catch (error) {
          return (error as Error).message;
        }
      })();
      lock.handOver("run-a", "run-b");
      await Promise.resolve();
      return { wrong, after: { ...observe(i), settled } };
    });
    expect(seen.wrong).toContain("does not hold the lock");
    expect(seen.after).toEqual({ stored: "run-b", active: "run-b", generation: 1, heartbeat: T0 + HEARTBEAT_MS, settled: true });
  });

  it("CANCEL-006: a row an earlier instance left is orphaned for this one; pick-up replaces it with the continuation's claim", async () => {
    const seen = await runInDurableObject(freshAgent(), async (i: AgentObject, state) => {
      i.now = () => T0;
      // An earlier instance of the object (before an eviction) took the lock.
      const earlier = new GenerationLock(state.storage.sql, i.rooms.context.deadlines, () => T0);
      earlier.stored.acquire("run-a", 1, LEASE_MS);
      const { lock } = i.rooms.context;
      // This instance came after it, so it reads the row from storage (it keeps what it read).
      lock.stored.storageCleared();
      const beat = await lock.beat();
      const picked = await lock.pickUp("run-a", "run-b");
      return { beat, picked: picked.ok, after: observe(i) };
    });
    expect(seen.beat).toBe("orphaned");
    expect(seen.picked).toBe(true);
    expect(seen.after).toEqual({ stored: "run-b", active: "run-b", generation: 1, heartbeat: T0 + HEARTBEAT_MS });
  });

  it("CANCEL-006: the heartbeat renews the live generation's lease from now and re-arms; with no lock it reports free", async () => {
    const seen = await runInDurableObject(freshAgent(), async (i: AgentObject) => {
      const { lock } = i.rooms.context;
      i.now = () => T0;
      const free = await lock.beat();
      await lock.claim("run-a", 1);
      i.now = () => T0 + HEARTBEAT_MS;
      const beat = await lock.beat();
      return { free, beat, leaseUntil: lock.held()?.leaseUntil, heartbeat: observe(i).heartbeat };
    });
    expect(seen).toEqual({ free: "free", beat: "renewed", leaseUntil: T0 + HEARTBEAT_MS + LEASE_MS, heartbeat: T0 + 2 * HEARTBEAT_MS });
  });
});
