import { afterEach, describe, expect, it, vi } from "vitest";
import { describeError, formatLogLine, logEvent } from "./log";
import { Redactor } from "./redaction";

const at = new Date("2026-01-01T00:00:00Z");

afterEach(() => vi.restoreAllMocks());

describe("structured logs", () => {
  it("ERR-003: one JSON line with run, guild, agent, operation and traceback", () => {
    const error = new Error("provider 502");
    const line = formatLogLine("error", { operation: "model.call", run_id: "r1", guild_id: "g1", agent_id: "a1", error }, undefined, at);
    expect(line).not.toContain("\n");
    const entry = JSON.parse(line);
    expect(Object.keys(entry).slice(0, 6)).toEqual(["level", "at", "operation", "run_id", "guild_id", "agent_id"]);
    expect(entry).toMatchObject({ level: "error", at: "2026-01-01T00:00:00.000Z", operation: "model.call", error: "Error: provider 502" });
    expect(entry.traceback).toBe(error.stack);
  });

  it("ERR-004: secret values are redacted in messages, tracebacks and nested fields", () => {
    const redactor = new Redactor([{ name: "KEY", value: "sk-live-9876" }]);
    const line = formatLogLine(
      "error",
      { operation: "model.call", error: new Error("bad key sk-live-9876"), detail: { header: "Bearer sk-live-9876" } },
      redactor,
      at,
    );
    expect(line).not.toContain("sk-live-9876");
    const entry = JSON.parse(line);
    expect(entry.error).toBe("Error: bad key [REDACTED:KEY]");
    expect(entry.traceback).toContain("[REDACTED:KEY]");
    expect(entry.detail.header).toBe("Bearer [REDACTED:KEY]");
  });

  it("ERR-005: log lines drop prompt, payload and tool result keys at any depth, and say so", () => {
    const line = formatLogLine(
      "info",
      {
        operation: "tool.run",
        prompt: "SYSTEM PROMPT TEXT",
        Messages: [{ role: "user", content: "USER TEXT" }],
        tool: { name: "note_read", arguments: '{"title":"x"}', result: "NOTE BODY" },
        count: 3,
      },
      undefined,
      at,
    );
    for (const hidden of ["SYSTEM PROMPT TEXT", "USER TEXT", "NOTE BODY", "title"]) expect(line).not.toContain(hidden);
    const entry = JSON.parse(line);
    expect(entry.tool).toEqual({ name: "note_read" });
    expect(entry.count).toBe(3);
    expect(entry.omitted).toEqual(["prompt", "Messages", "tool.arguments", "tool.result"]);
  });

  it("a plain error value passes the denylist too", () => {
    const entry = JSON.parse(formatLogLine("warn", { operation: "x", error: { code: "E1", body: "RAW BODY" } }, undefined, at));
    expect(entry.error).toEqual({ code: "E1" });
    expect(entry.traceback).toBeUndefined();
  });

  it("keeps the fixed keys from being overridden and survives odd values", () => {
    const cyclic: Record<string, unknown> = { name: "c" };
    cyclic.self = cyclic;
    const entry = JSON.parse(formatLogLine("info", { operation: "op", level: "forged", at: "forged", big: 10n, when: at, cyclic, fn: () => 1 }, undefined, at));
    expect(entry.level).toBe("info");
    expect(entry.at).toBe("2026-01-01T00:00:00.000Z");
    expect(entry).toMatchObject({ big: "10", when: "2026-01-01T00:00:00.000Z", cyclic: { name: "c", self: "[Circular]" } });
    expect("fn" in entry).toBe(false);
  });

  it("follows error causes into the traceback", () => {
    const error = new Error("outer", { cause: new Error("inner") });
    const { message, traceback } = describeError(error);
    expect(message).toBe("Error: outer");
    expect(traceback).toContain("Caused by: Error: inner");
  });

  it("writes errors and warnings to console.error, the rest to console.log", () => {
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    logEvent("error", { operation: "a" });
    logEvent("warn", { operation: "b" });
    logEvent("info", { operation: "c" });
    expect(err.mock.calls.map((c) => JSON.parse(String(c[0])).operation)).toEqual(["a", "b"]);
    expect(log.mock.calls.map((c) => JSON.parse(String(c[0])).operation)).toEqual(["c"]);
  });
});

describe("query parameters", () => {
  it("ERR-005: a failed query's bound parameters (row payloads) never reach a log line", () => {
    const error = new Error("Failed query: insert into messages values ($1, $2)\nparams: 7,the secret plan");
    const line = formatLogLine("error", { operation: "generation", error }, undefined, new Date(0));
    expect(line).not.toContain("the secret plan");
    expect(line).toContain("params: [omitted]");
  });
});
