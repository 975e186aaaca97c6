import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { armedAt, freshAgent, iso, setClock, T0 } from "../../test/workerd/agent-object";
import type { AgentObject } from "../agent/agent-object";
import { DeadlineMultiplexer, RETRY_MAX_MS, retryDelay } from "./deadlines";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Names of the fired deadlines, oldest first. */
async function firedNames(stub: DurableObjectStub<AgentObject>): Promise<string[]> {
  return (await stub.firedDeadlines()).map((f) => f.name);
}

/** Registers a handler kind on the live object (later features do this in the constructor). */
async function registerKind(
  stub: DurableObjectStub<AgentObject>,
  kind: string,
  make: (agent: AgentObject) => AgentObject["rooms"]["deadlineHandlers"][string],
): Promise<void> {
  await runInDurableObject(stub, (agent: AgentObject) => {
    agent.rooms.deadlineHandlers[kind] = make(agent);
  });
}

/** The structured lines the multiplexer logged through console.error. */
function loggedLines(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);
}

describe("alarm multiplexer", () => {
  it("the object's alarm is armed at the earliest deadline, whatever order they were set in", async () => {
    const agent = freshAgent();
    await agent.setDeadline("probe:b", T0 + 2_000);
    expect(await armedAt(agent)).toBe(T0 + 2_000);
    await agent.setDeadline("probe:a", T0 + 1_000);
    expect(await armedAt(agent)).toBe(T0 + 1_000);
    await agent.setDeadline("probe:c", T0 + 3_000);
    expect(await armedAt(agent)).toBe(T0 + 1_000);
    expect((await agent.deadlines()).map((d) => d.name)).toEqual(["probe:a", "probe:b", "probe:c"]);
  });

  it("SCHED-009: what a restarted object knows of its deadlines is what storage holds, and forget() leaves none behind", async () => {
    const agent = freshAgent();
    await agent.setDeadline("probe:a", T0 + 1_000, { n: 1 });
    await agent.setDeadline("probe:b", T0 + 2_000);
    // A fresh multiplexer over the same storage, as after an eviction, reads the stored rows.
    const restarted = await runInDurableObject(agent, (_: AgentObject, state) =>
      new DeadlineMultiplexer(state.storage, () => T0).list().map((d) => [d.name, d.dueAt, d.payload]),
    );
    expect(restarted).toEqual([
      ["probe:a", T0 + 1_000, { n: 1 }],
      ["probe:b", T0 + 2_000, undefined],
    ]);
    expect((await agent.forget()).forgotten).toBe(true);
    expect(await agent.deadlines()).toEqual([]);
    expect(await armedAt(agent)).toBeNull();
    // The object's own view starts over too: a new deadline arms the alarm at its time alone.
    await agent.setDeadline("probe:c", T0 + 3_000);
    expect((await agent.deadlines()).map((d) => d.name)).toEqual(["probe:c"]);
    expect(await armedAt(agent)).toBe(T0 + 3_000);
  });

  it("two deadlines fire in order of due time, then name, and the alarm is deleted when none is left", async () => {
    const agent = freshAgent();
    await agent.setDeadline("probe:b", T0 + 2_000);
    await agent.setDeadline("probe:z", T0 + 1_000);
    await agent.setDeadline("probe:a", iso(T0 + 1_000)); // ISO form, same due time as probe:z
    await setClock(agent, T0 + 5_000);
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    expect(await agent.firedDeadlines()).toEqual([
      { name: "probe:a", due_at: iso(T0 + 1_000), fired_at: iso(T0 + 5_000) },
      { name: "probe:z", due_at: iso(T0 + 1_000), fired_at: iso(T0 + 5_000) },
      { name: "probe:b", due_at: iso(T0 + 2_000), fired_at: iso(T0 + 5_000) },
    ]);
    expect(await agent.deadlines()).toEqual([]);
    expect(await armedAt(agent)).toBeNull();
  });

  it("a repeated alarm does not fire an entry twice (at-least-once delivery)", async () => {
    const agent = freshAgent();
    await agent.setDeadline("probe:once", T0 + 1_000);
    await agent.setDeadline("probe:later", T0 + 60_000);
    await setClock(agent, T0 + 2_000);
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    // The same alarm delivered again, twice, straight into alarm().
    await runInDurableObject(agent, async (instance: AgentObject) => {
      await instance.alarm();
      await instance.alarm();
    });
    // And through the runtime's path once more: the alarm is armed at probe:later.
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    expect(await firedNames(agent)).toEqual(["probe:once"]);
    expect((await agent.deadlines()).map((d) => d.name)).toEqual(["probe:later"]);
  });

  it("overlapping alarm() calls still fire an entry once", async () => {
    const agent = freshAgent();
    let runs = 0;
    await registerKind(agent, "slow", () => async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    await runInDurableObject(agent, async (instance: AgentObject) => {
      await instance.rooms.context.deadlines.set("slow:x", T0 + 1_000);
      instance.now = () => T0 + 2_000;
      await Promise.all([instance.alarm(), instance.alarm()]);
    });
    expect(runs).toBe(1);
    expect(await firedNames(agent)).toEqual(["slow:x"]);
  });

  it("a firing arms the alarm once, when it ends: what its handlers set and clear is not armed one change at a time", async () => {
    const agent = freshAgent();
    let armedDuring: number | null = null;
    await runInDurableObject(agent, (instance: AgentObject, state) => {
      instance.rooms.deadlineHandlers.chain = async () => {
        const { deadlines } = instance.rooms.context;
        await deadlines.set("probe:b", T0 + 7_000);
        await deadlines.set("probe:c", T0 + 5_000);
        await deadlines.clear("probe:b");
        armedDuring = await state.storage.getAlarm();
      };
    });
    await agent.setDeadline("chain:x", T0 + 1_000);
    await setClock(agent, T0 + 2_000);
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    // Mid-firing nothing was armed again (it had been, at the entry under way: a wasted write).
    expect(armedDuring).toBeNull();
    expect(await firedNames(agent)).toEqual(["chain:x"]);
    expect((await agent.deadlines()).map((d) => d.name)).toEqual(["probe:c"]);
    expect(await armedAt(agent)).toBe(T0 + 5_000);
  });

  it("SCHED-006: a handler that settles its entry is logged and armed at that moment; the entry waits at its guard, the alarm armed there after the firing", async () => {
    const agent = freshAgent();
    let armedAtSettle: number | null = null;
    let loggedAtSettle: string[] = [];
    await runInDurableObject(agent, (instance: AgentObject, state) => {
      instance.rooms.deadlineHandlers.settling = async (_entry, _now, settle) => {
        await settle(T0 + 30_000);
        armedAtSettle = await state.storage.getAlarm();
        loggedAtSettle = instance.rooms.firings.list().map((f) => f.name);
        // What a schedule's fire does next: outside I/O, while the object serves others.
        await new Promise((resolve) => setTimeout(resolve, 5));
      };
    });
    await agent.setDeadline("settling:x", T0 + 1_000);
    await setClock(agent, T0 + 2_000);
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    expect(armedAtSettle).toBe(T0 + 30_000);
    expect(loggedAtSettle).toEqual(["settling:x"]);
    // Logged once, kept at its guard time, and the alarm set mid-firing outlived the firing.
    expect(await firedNames(agent)).toEqual(["settling:x"]);
    expect(await agent.deadlines()).toMatchObject([{ name: "settling:x", attempts: 0, due_at: iso(T0 + 30_000) }]);
    expect(await armedAt(agent)).toBe(T0 + 30_000);
    // A repeated alarm before the guard time runs nothing.
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    expect(await firedNames(agent)).toEqual(["settling:x"]);
  });

  it("SCHED-009: a handler that fails after settling its entry is retried with the usual backoff", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const agent = freshAgent();
    let failuresLeft = 1;
    await registerKind(agent, "settling", () => async (_entry, _now, settle) => {
      await settle(T0 + 30_000);
      if (failuresLeft-- > 0) throw new Error("the database went away");
    });
    await agent.setDeadline("settling:x", T0 + 1_000);
    await setClock(agent, T0 + 2_000);
    await runDurableObjectAlarm(agent);
    expect(await agent.deadlines()).toMatchObject([{ name: "settling:x", attempts: 1, due_at: iso(T0 + 3_000) }]);
    expect(await armedAt(agent)).toBe(T0 + 3_000);
    await setClock(agent, T0 + 3_000);
    await runDurableObjectAlarm(agent);
    expect(failuresLeft).toBe(-1);
    expect(await agent.deadlines()).toMatchObject([{ name: "settling:x", attempts: 0, due_at: iso(T0 + 30_000) }]);
  });

  it("an entry not yet due stays and the alarm re-arms at it", async () => {
    const agent = freshAgent();
    await agent.setDeadline("probe:now", T0 + 1_000);
    await agent.setDeadline("probe:soon", T0 + 10_000);
    await setClock(agent, T0 + 9_999);
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    expect(await firedNames(agent)).toEqual(["probe:now"]);
    expect((await agent.deadlines()).map((d) => [d.name, d.due_at])).toEqual([["probe:soon", iso(T0 + 10_000)]]);
    expect(await armedAt(agent)).toBe(T0 + 10_000);

    // Delivered early (clock before every entry): nothing fires, the alarm stays armed.
    await setClock(agent, T0 + 5_000);
    expect(await runDurableObjectAlarm(agent)).toBe(true);
    expect(await firedNames(agent)).toEqual(["probe:now"]);
    expect(await armedAt(agent)).toBe(T0 + 10_000);
  });

  it("clearing the earliest re-arms at the next, clearing the last deletes the alarm", async () => {
    const agent = freshAgent();
    await agent.setDeadline("probe:a", T0 + 1_000);
    await agent.setDeadline("probe:b", T0 + 2_000);
    expect(await agent.clearDeadline("probe:a")).toBe(true);
    expect(await armedAt(agent)).toBe(T0 + 2_000);
    expect(await agent.clearDeadline("probe:a")).toBe(false);
    expect(await agent.clearDeadline("probe:b")).toBe(true);
    expect(await armedAt(agent)).toBeNull();
    expect(await runDurableObjectAlarm(agent)).toBe(false);
  });

  it("setting a deadline again replaces it: new due time and version, armed at the new time", async () => {
    const agent = freshAgent();
    const first = await agent.setDeadline("probe:x", T0 + 1_000);
    const second = await agent.setDeadline("probe:x", T0 + 7_000, { n: 2 });
    expect(second.version).toBeGreaterThan(first.version);
    expect(await agent.deadlines()).toHaveLength(1);
    expect(await armedAt(agent)).toBe(T0 + 7_000);
    const payload = await runInDurableObject(agent, (i: AgentObject) => i.rooms.context.deadlines.get("probe:x")?.payload);
    expect(payload).toEqual({ n: 2 });
    await setClock(agent, T0 + 2_000);
    await runDurableObjectAlarm(agent);
    expect(await firedNames(agent)).toEqual([]);
  });

  it("a handler that reschedules itself is kept and fires again at its new time", async () => {
    const agent = freshAgent();
    const seen: number[] = [];
    await registerKind(agent, "tick", (instance) => async (entry) => {
      seen.push(entry.dueAt);
      await instance.rooms.context.deadlines.set(entry.name, entry.dueAt + 60_000, entry.payload);
    });
    await agent.setDeadline("tick:every-minute", T0 + 1_000, { keep: true });
    await setClock(agent, T0 + 2_000);
    await runDurableObjectAlarm(agent);
    expect(await agent.deadlines()).toMatchObject([{ name: "tick:every-minute", due_at: iso(T0 + 61_000) }]);
    expect(await armedAt(agent)).toBe(T0 + 61_000);

    await setClock(agent, T0 + 61_000);
    await runDurableObjectAlarm(agent);
    await runDurableObjectAlarm(agent); // repeated delivery: not due again yet
    expect(seen).toEqual([T0 + 1_000, T0 + 61_000]);
    expect(await firedNames(agent)).toEqual(["tick:every-minute", "tick:every-minute"]);
    expect(await armedAt(agent)).toBe(T0 + 121_000);
    const kept = await runInDurableObject(agent, (i: AgentObject) => i.rooms.context.deadlines.get("tick:every-minute"));
    expect(kept?.payload).toEqual({ keep: true });
  });

  it("a handler that clears and re-sets its entry is not deleted by the stale version", async () => {
    const agent = freshAgent();
    await registerKind(agent, "renew", (instance) => async (entry) => {
      await instance.rooms.context.deadlines.clear(entry.name);
      await instance.rooms.context.deadlines.set(entry.name, entry.dueAt + 5_000);
    });
    await agent.setDeadline("renew:x", T0 + 1_000);
    await setClock(agent, T0 + 2_000);
    await runDurableObjectAlarm(agent);
    expect((await agent.deadlines()).map((d) => d.due_at)).toEqual([iso(T0 + 6_000)]);
  });

  it("a failing handler is retried with backoff and does not block others", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const agent = freshAgent();
    let failuresLeft = 2;
    await registerKind(agent, "flaky", () => () => {
      if (failuresLeft-- > 0) throw new Error("boom");
    });
    await agent.setDeadline("flaky:x", T0 + 1_000, { secret: "payload-must-not-be-logged" });
    await agent.setDeadline("probe:after", T0 + 1_500);

    await setClock(agent, T0 + 2_000);
    await runDurableObjectAlarm(agent);
    expect(await firedNames(agent)).toEqual(["probe:after"]);
    expect(await agent.deadlines()).toMatchObject([{ name: "flaky:x", attempts: 1, due_at: iso(T0 + 3_000) }]);
    expect(await armedAt(agent)).toBe(T0 + 3_000);
    const lines = loggedLines(errors);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ event: "deadline.handler_failed", name: "flaky:x", attempts: 1 });
    expect(String(errors.mock.calls[0]?.[0])).not.toContain("payload-must-not-be-logged");

    // Not hot: delivered again before the retry time, the handler does not run.
    await setClock(agent, T0 + 2_500);
    await runDurableObjectAlarm(agent);
    expect(failuresLeft).toBe(1);

    // Second failure doubles the delay.
    await setClock(agent, T0 + 3_000);
    await runDurableObjectAlarm(agent);
    expect(await agent.deadlines()).toMatchObject([{ name: "flaky:x", attempts: 2, due_at: iso(T0 + 5_000) }]);

    // Third try succeeds: fired once, gone, alarm deleted.
    await setClock(agent, T0 + 5_000);
    await runDurableObjectAlarm(agent);
    expect(await firedNames(agent)).toEqual(["probe:after", "flaky:x"]);
    expect(await agent.deadlines()).toEqual([]);
    expect(await armedAt(agent)).toBeNull();
  });

  it("the retry delay doubles from 1 s and is capped at 5 minutes", () => {
    expect([1, 2, 3, 4].map(retryDelay)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelay(9)).toBe(256_000);
    expect(retryDelay(10)).toBe(RETRY_MAX_MS);
    expect(retryDelay(1_000)).toBe(5 * 60_000);
  });

  it("an entry of an unknown kind is dropped with a log line, and setting one over RPC is refused", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const agent = freshAgent();
    expect(await rpcError(agent, (i) => i.setDeadline("mystery:1", T0 + 1_000))).toMatch(/unknown deadline kind "mystery"/);
    // Stored by some other code version whose kind no longer exists.
    await runInDurableObject(agent, (i: AgentObject) => i.rooms.context.deadlines.set("mystery:1", T0 + 1_000));
    await agent.setDeadline("probe:ok", T0 + 1_000);
    await setClock(agent, T0 + 2_000);
    await runDurableObjectAlarm(agent);
    expect(await agent.deadlines()).toEqual([]);
    expect(await firedNames(agent)).toEqual(["probe:ok"]);
    expect(loggedLines(errors)).toEqual([expect.objectContaining({ event: "deadline.unknown_kind", name: "mystery:1", kind: "mystery" })]);
  });

  it("setDeadline refuses a due time that is not a time", async () => {
    const agent = freshAgent();
    expect(await rpcError(agent, (i) => i.setDeadline("probe:x", "next tuesday-ish"))).toMatch(/due_at/);
    expect(await rpcError(agent, (i) => i.setDeadline("probe:x", Number.NaN))).toMatch(/due_at/);
    expect(await agent.deadlines()).toEqual([]);
  });

  it("on the real clock, the runtime delivers the alarm and the re-armed alarm fires the next entry", async () => {
    const agent = freshAgent(); // real Date.now() clock, real alarm delivery
    const start = Date.now();
    await agent.setDeadline("probe:first", start + 100);
    await agent.setDeadline("probe:second", start + 400);
    await vi.waitFor(async () => expect(await firedNames(agent)).toEqual(["probe:first", "probe:second"]), {
      timeout: 5_000,
      interval: 50,
    });
    const fired = await agent.firedDeadlines();
    expect(Date.parse(fired[1]!.fired_at)).toBeGreaterThanOrEqual(start + 400);
    expect(await armedAt(agent)).toBeNull();
  });

  it("the fired-deadline history keeps the last 100 firings", async () => {
    const agent = freshAgent();
    await runInDurableObject(agent, async (i: AgentObject) => {
      for (let n = 0; n < 105; n++) await i.rooms.context.deadlines.set(`probe:${String(n).padStart(3, "0")}`, T0 + n);
    });
    await setClock(agent, T0 + 1_000);
    await runDurableObjectAlarm(agent);
    const names = await firedNames(agent);
    expect(names).toHaveLength(100);
    expect(names[0]).toBe("probe:005");
    expect(names[99]).toBe("probe:104");
  });
});

/**
 * The message an RPC method rejects with, called on the instance: a rejecting call through
 * the stub leaks one unhandled rejection in vitest-pool-workers
 * (cloudflare/workers-sdk#14736), which would fail the run although the test handles it.
 */
async function rpcError(stub: DurableObjectStub<AgentObject>, call: (agent: AgentObject) => Promise<unknown>): Promise<string> {
  return runInDurableObject(stub, async (agent: AgentObject) => {
    try {
      await call(agent);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return "(no error)";
  });
}
