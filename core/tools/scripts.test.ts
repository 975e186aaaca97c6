import { describe, expect, it } from "vitest";
import { MemoryNotesRecordsStore } from "./memory-store";
import { runTool } from "./registry";
import { SCRIPT_TOOLS, scriptTool } from "./scripts";
import type { SandboxExecResult, ToolContext } from "./types";

const ran: Array<{ name: string; args: Record<string, unknown> }> = [];
const done: SandboxExecResult = { exitCode: 0, output: "ok\n", timedOut: false, killed: false, truncated: false, durationMs: 10 };

const ctx = (scripting = true): ToolContext => ({
  agentId: "agent-1",
  runId: "run-1",
  toolCallId: "call-1",
  now: () => new Date("2026-01-01T00:00:00Z"),
  store: new MemoryNotesRecordsStore(() => new Date("2026-01-01T00:00:00Z")),
  ...(scripting
    ? {
        scripts: {
          list: async () => [],
          read: async () => null,
          create: async () => ({ created: true, version: 1, snapshotted: false }),
          remove: async () => false,
          run: async (name, args) => {
            ran.push({ name, args });
            return name === "slow"
              ? { ok: true, result: { ...done, timedOut: true, exitCode: null }, timeoutS: 120 }
              : { ok: true, result: done, timeoutS: 120 };
          },
        },
      }
    : {}),
});

const weather = scriptTool({
  type: "function",
  function: { name: "weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
});

describe("script tools", () => {
  it("SCRIPT-033: a script's own tool checks its arguments against the script's schema, then runs it", async () => {
    ran.length = 0;
    expect((await runTool([weather], "weather", '{"city":"Oslo"}', ctx())).content).toBe("ok\n[exit code 0 after 0.0 s]");
    expect(ran).toEqual([{ name: "weather", args: { city: "Oslo" } }]);
    const refused = await runTool([weather], "weather", '{"town":"Oslo"}', ctx());
    expect(refused.content).toMatch(/^ERROR: invalid arguments: /);
    expect(ran).toHaveLength(1);
  });

  it("SCRIPT-034 / OP-SCRIPT-6: a run past the limit says the script timed out", async () => {
    const result = await runTool([...SCRIPT_TOOLS], "script_run", '{"name":"slow"}', ctx());
    expect(result.content).toContain("[script timed out after 120 s: it and everything it started were killed]");
  });

  it("SCRIPT-035: arguments over the size one environment variable can hold are refused before anything runs", async () => {
    ran.length = 0;
    const big = JSON.stringify({ name: "weather", arguments: { blob: "x".repeat(100_001) } });
    expect((await runTool([...SCRIPT_TOOLS], "script_run", big, ctx())).content).toMatch(
      /^ERROR: the arguments are \d+ bytes as JSON, over the 100000-byte limit/,
    );
    expect(ran).toEqual([]);
  });

  it("SCRIPT-018: without scripting a script tool refuses rather than throwing", async () => {
    expect((await runTool([...SCRIPT_TOOLS], "script_list", "{}", ctx(false))).content).toBe("ERROR: scripting is off for this run");
  });
});
