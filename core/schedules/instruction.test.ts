import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { instructionHash, scheduleWakeUpMessage } from "./instruction";

describe("schedule wake-up message and instruction hash (SCHED-014..019)", () => {
  it("SCHED-014/015: a cron wake-up on the first wake has previous_run_at null", () => {
    const text = scheduleWakeUpMessage({ id: "sch_1", cron: "0 9 * * 1-5", instruction: "Check the inbox.", previous_run_at: null });
    expect(text).toBe(
      ["Schedule wake-up: {", '  "id": "sch_1",', '  "cron": "0 9 * * 1-5",', '  "instruction": "Check the inbox.",', '  "previous_run_at": null', "}"].join(
        "\n",
      ),
    );
  });

  it("SCHED-014/016: a window wake-up carries the window in fixed key order and previous_run_at as ISO UTC", () => {
    const window = { max_wakes: 3, end: "17:00", start: "09:00", timezone: "Europe/Berlin" };
    const text = scheduleWakeUpMessage({
      id: "sch_2",
      window,
      instruction: '# Plan\n- read "news"',
      previous_run_at: "2026-03-29 08:15:00+02",
    });
    expect(text.startsWith("Schedule wake-up: {\n")).toBe(true);
    const body = JSON.parse(text.slice("Schedule wake-up: ".length));
    expect(Object.keys(body)).toEqual(["id", "window", "instruction", "previous_run_at"]);
    expect(Object.keys(body.window)).toEqual(["timezone", "start", "end", "max_wakes"]);
    expect(body.instruction).toBe('# Plan\n- read "news"');
    expect(body.previous_run_at).toBe("2026-03-29T06:15:00.000Z");
    expect(scheduleWakeUpMessage({ id: "s", cron: "* * * * *", instruction: "x", previous_run_at: new Date("2026-01-01T00:00:00Z") })).toContain(
      '"previous_run_at": "2026-01-01T00:00:00.000Z"',
    );
  });

  it("SCHED-002/014: exactly one of cron and window; a bad previous_run_at throws", () => {
    const window = { timezone: "UTC", start: "09:00", end: "10:00", max_wakes: 1 };
    expect(() => scheduleWakeUpMessage({ id: "s", instruction: "x", previous_run_at: null })).toThrow(/exactly one/);
    expect(() => scheduleWakeUpMessage({ id: "s", cron: "* * * * *", window, instruction: "x", previous_run_at: null })).toThrow(/exactly one/);
    expect(() => scheduleWakeUpMessage({ id: "s", cron: "* * * * *", instruction: "x", previous_run_at: "soon" })).toThrow(/not a date/);
  });

  it("SCHED-018: instruction_hash is SHA-256 hex of the UTF-8 instruction as stored", async () => {
    const instruction = "Résumé the day's *records*.\n";
    expect(await instructionHash(instruction)).toBe(createHash("sha256").update(instruction, "utf8").digest("hex"));
    expect(await instructionHash("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("SCHED-019: an edited instruction hashes differently, even by whitespace", async () => {
    expect(await instructionHash("Check the inbox.")).not.toBe(await instructionHash("Check the inbox. "));
  });
});
