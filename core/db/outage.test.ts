import { describe, expect, it } from "vitest";
import { isTransient, riding, sqlState } from "./outage";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("riding out a database outage", () => {
  it("HARDEN-2: connection failures are transient; refused statements and our own bugs are not", () => {
    for (const message of [
      "Connection terminated unexpectedly",
      "Network connection lost.",
      "connect ECONNREFUSED 127.0.0.1:5432",
      "WebSocket was closed before the connection was established",
      "timeout exceeded when trying to connect",
    ]) {
      expect(isTransient(new Error(message)), message).toBe(true);
    }
    expect(isTransient(withCode("terminating connection due to administrator command", "57P01"))).toBe(true);
    expect(isTransient(withCode("could not serialize access", "40001"))).toBe(true);
    expect(isTransient(withCode("duplicate key value", "23505"))).toBe(false);
    expect(isTransient(withCode("unsupported Unicode escape sequence", "22P05"))).toBe(false);
    // Words a parser uses are not a lost connection.
    expect(isTransient(new SyntaxError("Unterminated string in JSON at position 4"))).toBe(false);
    expect(isTransient(new Error("Unterminated string in JSON at position 4"))).toBe(false);
    expect(isTransient(new TypeError("Cannot read properties of undefined (reading 'closed')"))).toBe(false);
  });

  it("HARDEN-2: the SQLSTATE is found through wrappers (drizzle's cause)", () => {
    const wrapped = Object.assign(new Error("Failed query: insert ..."), { cause: withCode("duplicate key", "23505") });
    expect(sqlState(wrapped)).toBe("23505");
    expect(isTransient(wrapped)).toBe(false);
    expect(isTransient(Object.assign(new Error("Failed query: select ..."), { cause: new Error("Connection terminated unexpectedly") }))).toBe(true);
  });

  it("HARDEN-2: retries transient failures with growing pauses within the budget, then gives up with the last error", async () => {
    const pauses: number[] = [];
    let clock = 0;
    const policy = {
      budgetMs: 2_000,
      firstPauseMs: 250,
      maxPauseMs: 1_000,
      now: () => clock,
      sleep: async (ms: number) => {
        pauses.push(ms);
        clock += ms;
      },
    };
    let attempts = 0;
    expect(
      await riding(async (n) => {
        attempts++;
        if (n < 2) throw new Error("Connection terminated unexpectedly");
        return "ok";
      }, policy),
    ).toBe("ok");
    expect(attempts).toBe(3);
    expect(pauses).toEqual([250, 500]);
    pauses.length = 0;
    clock = 0;
    await expect(
      riding(async () => {
        throw new Error("Connection terminated unexpectedly");
      }, policy),
    ).rejects.toThrow("terminated");
    expect(pauses).toEqual([250, 500, 1_000]);
    await expect(
      riding(async () => {
        throw withCode("duplicate", "23505");
      }, policy),
    ).rejects.toThrow("duplicate");
  });
});
