import { describe, expect, it } from "vitest";
import { OpeningGate } from "./opening-gate";

const late = () => new Error("no slot in time");

describe("the opening gate", () => {
  it("ISSUE-34: admits `size` openings at once; the next waits for a release and gets the freed slot", async () => {
    const gate = new OpeningGate(2);
    const a = await gate.enter(1_000, late);
    await gate.enter(1_000, late);
    expect(gate.inUse).toBe(2);
    let third = false;
    const waiting = gate.enter(1_000, late).then((leave) => {
      third = true;
      return leave;
    });
    await Promise.resolve();
    expect([third, gate.waiting]).toEqual([false, 1]);
    a();
    const leave = await waiting;
    expect(third).toBe(true);
    expect([gate.inUse, gate.waiting]).toEqual([2, 0]);
    leave();
    expect(gate.inUse).toBe(1);
  });

  it("ISSUE-34: a waiter keeps its place past its time while openings succeed, and gets the next slot", async () => {
    const gate = new OpeningGate(1);
    let leave = await gate.enter(1_000, late);
    const ahead = [1, 2, 3].map(() => gate.enter(1_000, late));
    const waiting = gate.enter(60, late);
    // The three ahead of it open one after another, each within its 60 ms: 150 ms in all.
    for (const next of ahead) {
      await new Promise((r) => setTimeout(r, 50));
      leave(true);
      leave = await next;
    }
    expect(gate.waiting).toBe(1);
    leave(true);
    (await waiting)();
    expect(gate.inUse).toBe(0);
  });

  it("ISSUE-34: a waiter past its time fails with its own error and takes no slot afterwards", async () => {
    const gate = new OpeningGate(1);
    const held = await gate.enter(1_000, late);
    await expect(gate.enter(20, late)).rejects.toThrow("no slot in time");
    expect(gate.waiting).toBe(0);
    held();
    expect(gate.inUse).toBe(0);
  });

  it("ISSUE-34: a release counts once, however often it is called", async () => {
    const gate = new OpeningGate(2);
    const leave = await gate.enter(1_000, late);
    await gate.enter(1_000, late);
    leave();
    leave();
    expect(gate.inUse).toBe(1);
  });

  it("ISSUE-34: waiters are admitted in the order they came", async () => {
    const gate = new OpeningGate(1);
    const first = await gate.enter(1_000, late);
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      gate.enter(1_000, late).then((leave) => {
        order.push(n);
        leave();
      }),
    );
    first();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });
});
