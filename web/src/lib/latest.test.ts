import { describe, expect, it } from "vitest";
import { Latest } from "./latest";

describe("latest load only", () => {
  it("USAGE-UI: a newer load aborts the one before it, whose answer no longer counts", () => {
    const latest = new Latest();
    const first = latest.begin();
    expect(first.current()).toBe(true);
    const second = latest.begin();
    expect(first.signal.aborted).toBe(true);
    expect(first.current()).toBe(false);
    expect(second.current()).toBe(true);
    expect(second.signal.aborted).toBe(false);
  });

  it("USAGE-UI: answers that settle out of order: only the newest load's lands", async () => {
    const latest = new Latest();
    const landed: string[] = [];
    const load = async (value: string, delayMs: number) => {
      const ticket = latest.begin();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (ticket.current()) landed.push(value);
    };
    await Promise.all([load("month", 30), load("30 days", 1)]);
    expect(landed).toEqual(["30 days"]);
  });

  it("USAGE-UI: cancel ends every ticket handed out", () => {
    const latest = new Latest();
    const ticket = latest.begin();
    latest.cancel();
    expect(ticket.current()).toBe(false);
    expect(ticket.signal.aborted).toBe(true);
  });
});
