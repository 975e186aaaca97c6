import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { freshAgent, iso, setClock, T0 } from "../../../test/workerd/agent-object";
import type { AgentObject } from "../agent-object";
import { StoredLock } from "./stored-lock";

const LEASE = 30_000;

describe("the stored generation lock", () => {
  it("GEN-002: a second acquire while a generation runs is busy and names the holder's run id", async () => {
    const agent = freshAgent();
    const [first, second, third] = await runInDurableObject(agent, (i: AgentObject) => {
      i.now = () => T0;
      return [
        i.rooms.context.lock.stored.acquire("run-a", 1, LEASE),
        i.rooms.context.lock.stored.acquire("run-b", 1, LEASE),
        i.rooms.context.lock.stored.acquire("run-a", 2, LEASE),
      ];
    });
    expect(first).toMatchObject({ ok: true, lease: { runId: "run-a", generation: 1, leaseUntil: T0 + LEASE, startedAt: T0 } });
    expect(second).toEqual({ ok: false, busyRunId: "run-a", leaseExpired: false });
    // The same run's next generation waits too: one generation at a time, not one run.
    expect(third).toEqual({ ok: false, busyRunId: "run-a", leaseExpired: false });
  });

  it("only the holder's run id releases the lock; then another run can take it", async () => {
    const agent = freshAgent();
    const steps = await runInDurableObject(agent, (i: AgentObject) => {
      i.now = () => T0;
      i.rooms.context.lock.stored.acquire("run-a", 1, LEASE);
      const byOther = i.rooms.context.lock.stored.release("run-b");
      const heldAfterOther = i.rooms.context.lock.stored.current()?.runId;
      const byHolder = i.rooms.context.lock.stored.release("run-a");
      const heldAfterHolder = i.rooms.context.lock.stored.current();
      const next = i.rooms.context.lock.stored.acquire("run-b", 3, LEASE).ok;
      return { byOther, heldAfterOther, byHolder, heldAfterHolder, next };
    });
    expect(steps).toEqual({ byOther: false, heldAfterOther: "run-a", byHolder: true, heldAfterHolder: null, next: true });
  });

  it("renew extends the holder's lease from now and refuses any other run", async () => {
    const agent = freshAgent();
    const result = await runInDurableObject(agent, (i: AgentObject) => {
      let clock = T0;
      i.now = () => clock;
      i.rooms.context.lock.stored.acquire("run-a", 1, LEASE);
      clock = T0 + 20_000;
      const renewed = i.rooms.context.lock.stored.renew("run-a", LEASE);
      const other = i.rooms.context.lock.stored.renew("run-b", LEASE);
      return { renewed, other, current: i.rooms.context.lock.stored.current() };
    });
    expect(result.renewed?.leaseUntil).toBe(T0 + 20_000 + LEASE);
    expect(result.other).toBeNull();
    expect(result.current).toMatchObject({ runId: "run-a", generation: 1, leaseUntil: T0 + 50_000, startedAt: T0 });
  });

  it("lease expiry: expired() turns true once the clock passes lease_until, and the lock is not taken over", async () => {
    const agent = freshAgent();
    const result = await runInDurableObject(agent, (i: AgentObject) => {
      let clock = T0;
      i.now = () => clock;
      const before = i.rooms.context.lock.stored.expired();
      i.rooms.context.lock.stored.acquire("run-a", 1, LEASE);
      const fresh = i.rooms.context.lock.stored.expired();
      const justBefore = i.rooms.context.lock.stored.expired(T0 + LEASE - 1);
      clock = T0 + LEASE;
      const atLeaseEnd = i.rooms.context.lock.stored.expired();
      // Recovery (interruption results) must run before anyone else generates.
      const takeover = i.rooms.context.lock.stored.acquire("run-b", 1, LEASE);
      return { before, fresh, justBefore, atLeaseEnd, takeover };
    });
    expect(result).toEqual({
      before: false,
      fresh: false,
      justBefore: false,
      atLeaseEnd: true,
      takeover: { ok: false, busyRunId: "run-a", leaseExpired: true },
    });
  });

  it("CHAIN-010: the lock passes to the continuation run without being released", async () => {
    const agent = freshAgent();
    const result = await runInDurableObject(agent, (i: AgentObject) => {
      let clock = T0;
      i.now = () => clock;
      i.rooms.context.lock.stored.acquire("run-a", 4, LEASE);
      const wrongHolder = i.rooms.context.lock.stored.handOver("run-x", "run-b", 1, LEASE);
      clock = T0 + 1_000;
      const passed = i.rooms.context.lock.stored.handOver("run-a", "run-b", 1, LEASE);
      return { wrongHolder, passed, current: i.rooms.context.lock.stored.current(), other: i.rooms.context.lock.stored.acquire("run-c", 1, LEASE) };
    });
    expect(result.wrongHolder).toBe(false);
    expect(result.passed).toBe(true);
    expect(result.current).toMatchObject({ runId: "run-b", generation: 1, leaseUntil: T0 + 1_000 + LEASE, startedAt: T0 + 1_000 });
    expect(result.other).toEqual({ ok: false, busyRunId: "run-b", leaseExpired: false });
  });

  it("generationState() reports the holder with ISO times over RPC, and not generating after release", async () => {
    const agent = freshAgent();
    expect(await agent.generationState()).toEqual({ generating: false });
    await runInDurableObject(agent, (i: AgentObject) => {
      i.now = () => T0;
      i.rooms.context.lock.stored.acquire("run-a", 2, LEASE);
    });
    expect(await agent.generationState()).toEqual({
      generating: true,
      run_id: "run-a",
      generation: 2,
      started_at: iso(T0),
      lease_until: iso(T0 + LEASE),
      lease_expired: false,
    });
    await setClock(agent, T0 + LEASE + 1);
    expect(await agent.generationState()).toMatchObject({ generating: true, lease_expired: true });
    await runInDurableObject(agent, (i: AgentObject) => i.rooms.context.lock.stored.release("run-a"));
    expect(await agent.generationState()).toEqual({ generating: false });
  });

  it("the lock lives in storage, not memory: a fresh lock over the same storage (as after a restart) sees it", async () => {
    const agent = freshAgent();
    const seen = await runInDurableObject(agent, (i: AgentObject, state) => {
      i.now = () => T0;
      i.rooms.context.lock.stored.acquire("run-a", 1, LEASE);
      // What the object builds when it starts again after an eviction.
      const restarted = new StoredLock(state.storage.sql, () => T0 + LEASE);
      return { lease: restarted.current(), expired: restarted.expired() };
    });
    expect(seen).toMatchObject({ lease: { runId: "run-a", generation: 1, leaseUntil: T0 + LEASE, startedAt: T0 }, expired: true });
  });

  it("GEN-002: a lock this instance took is never an orphan while its lease runs, even before its loop starts", async () => {
    const agent = freshAgent();
    const seen = await runInDurableObject(agent, (i: AgentObject) => {
      let clock = T0;
      i.now = () => clock;
      i.rooms.context.lock.stored.acquire("run-a", 1, LEASE);
      const starting = i.rooms.context.lock.stored.orphaned();
      clock = T0 + LEASE;
      const expired = i.rooms.context.lock.stored.orphaned()?.runId ?? null;
      return { starting, expired };
    });
    expect(seen).toEqual({ starting: null, expired: "run-a" });
  });

  it("CANCEL-006: a lock an earlier instance took is an orphan at once, and its renewal is refused", async () => {
    const agent = freshAgent();
    const seen = await runInDurableObject(agent, (i: AgentObject, state) => {
      i.now = () => T0;
      i.rooms.context.lock.stored.acquire("run-a", 1, LEASE);
      // The next instance of the object, over the same storage, before the lease ran out.
      const next = new StoredLock(state.storage.sql, () => T0 + 1);
      return { orphan: next.orphaned()?.runId ?? null, renewed: next.renew("run-a", LEASE), byOwner: i.rooms.context.lock.stored.orphaned() };
    });
    expect(seen).toEqual({ orphan: "run-a", renewed: null, byOwner: null });
  });

  it("GEN-002: a lock written before instances were recorded reads as an earlier instance's", async () => {
    const agent = freshAgent();
    const seen = await runInDurableObject(agent, (_i: AgentObject, state) => {
      const sql = state.storage.sql;
      sql.exec("DROP TABLE generation_lock");
      sql.exec(`CREATE TABLE generation_lock (id INTEGER PRIMARY KEY CHECK (id = 1), run_id TEXT NOT NULL,
        generation INTEGER NOT NULL, lease_until INTEGER NOT NULL, started_at INTEGER NOT NULL)`);
      sql.exec("INSERT INTO generation_lock VALUES (1, 'run-old', 3, ?, ?)", T0 + LEASE, T0);
      StoredLock.migrate(sql);
      return new StoredLock(sql, () => T0).orphaned();
    });
    expect(seen).toMatchObject({ runId: "run-old", generation: 3, instance: "" });
  });

  it("acquire refuses a generation below 1 and a non-positive lease", async () => {
    const agent = freshAgent();
    const messages = await runInDurableObject(agent, (i: AgentObject) =>
      [
        () => i.rooms.context.lock.stored.acquire("run-a", 0, LEASE),
        () => i.rooms.context.lock.stored.acquire("run-a", 1, 0),
        () => i.rooms.context.lock.stored.acquire("", 1, LEASE),
      ].map((attempt) => {
        try {
          attempt();
          return "(no error)";
        } catch (error) {
          return (error as Error).message;
        }
      }),
    );
    expect(messages).toEqual([expect.stringMatching(/generation/), expect.stringMatching(/lease/), expect.stringMatching(/run id/)]);
    expect(await agent.generationState()).toEqual({ generating: false });
  });
});
