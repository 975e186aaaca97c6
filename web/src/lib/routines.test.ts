import { describe, expect, it } from "vitest";
import type { Schedule } from "./api";
import { inZone, olderInstruction, routineBody, routineValues, shortHash, triggerText, utc } from "./routines";

const schedule = (over: Partial<Schedule> = {}): Schedule => ({
  id: "s1",
  agent_id: "a1",
  description: "Morning",
  instruction: "Read the news",
  instruction_hash: "ab".repeat(32),
  cron: "0 8 * * *",
  wake_window: null,
  paused: false,
  next_run_at: null,
  last_run_at: null,
  window_fires: 0,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  ...over,
});

describe("routine form body", () => {
  it("a new routine sends its description, instruction and the chosen trigger only", () => {
    const values = { ...routineValues(null, "Europe/Berlin"), description: "Morning", instruction: "Read", cron: " 0 8 * * * " };
    expect(routineBody(values, null)).toEqual({ description: "Morning", instruction: "Read", cron: "0 8 * * *" });
    expect(routineBody({ ...values, trigger: "window", max_wakes: "4" }, null)).toEqual({
      description: "Morning",
      instruction: "Read",
      wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "17:00", max_wakes: 4 },
    });
    // Not a whole number: sent as typed, so the API's 422 names wake_window.max_wakes.
    expect((routineBody({ ...values, trigger: "window", max_wakes: "lots" }, null).wake_window as { max_wakes: unknown }).max_wakes).toBe("lots");
  });

  it("an edit sends only the changes; switching the trigger clears the other one; an unchanged trigger is not sent (it would replan)", () => {
    const s = schedule();
    expect(routineBody({ ...routineValues(s), instruction: "Read the papers" }, s)).toEqual({ instruction: "Read the papers" });
    expect(routineBody(routineValues(s), s)).toEqual({});
    const toWindow = routineBody({ ...routineValues(s, "UTC"), trigger: "window" }, s);
    expect(toWindow).toEqual({ wake_window: { timezone: "UTC", start: "09:00", end: "17:00", max_wakes: 3 }, cron: null });
    const w = schedule({ cron: null, wake_window: { timezone: "Asia/Tokyo", start: "22:00", end: "02:00", max_wakes: 2 } });
    expect(routineValues(w).trigger).toBe("window");
    expect(routineBody({ ...routineValues(w), end: "03:00" }, w)).toEqual({
      wake_window: { timezone: "Asia/Tokyo", start: "22:00", end: "03:00", max_wakes: 2 },
    });
    expect(routineBody({ ...routineValues(w), trigger: "cron", cron: "*/5 * * * *" }, w)).toEqual({ cron: "*/5 * * * *", wake_window: null });
  });
});

describe("routine display", () => {
  it("shows a trigger readably, times in UTC and in the window's zone, and hashes shortened", () => {
    expect(triggerText(schedule())).toBe("cron 0 8 * * * (UTC)");
    expect(triggerText(schedule({ cron: null, wake_window: { timezone: "Europe/Berlin", start: "09:00", end: "17:00", max_wakes: 3 } }))).toBe(
      "random 3× between 09:00 and 17:00 (Europe/Berlin)",
    );
    expect(utc("2026-05-01T08:00:00.000Z")).toBe("2026-05-01 08:00 UTC");
    expect(utc(null)).toBe("–");
    expect(inZone("2026-05-01T08:00:00.000Z", "Europe/Berlin")).toContain("10:00 Europe/Berlin");
    expect(shortHash("0123456789abcdef")).toBe("0123456789ab");
  });

  it("UI-004: a run fired with another instruction than the routine's current one is older", () => {
    const s = schedule();
    expect(olderInstruction(s.instruction_hash, s)).toBe(false);
    expect(olderInstruction("cd".repeat(32), s)).toBe(true);
    expect(olderInstruction(undefined, s)).toBe(false);
  });
});
