import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EVENT_STREAMS, eventStreamSchema, GUILD_EVENTS, RUN_EVENTS, TASK_EVENTS } from "./streams";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The source files that may publish events: the objects and the bindings that reach them. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((f) => f.isFile() && f.name.endsWith(".ts") && !f.name.endsWith(".test.ts") && !f.name.endsWith(".d.ts"))
    .map((f) => join(f.parentPath, f.name));
}

/**
 * Every event name a call site sends, by file: `hub.publish(stream, "name", …)`, a guild's
 * `agentEvent(guild, "name", …)`, and the hub's own frames (`frame("name", …)`: rows,
 * status, gap). A name passed as a variable is typed by the hub's event map instead.
 */
function emitted(): Map<string, Set<string>> {
  const patterns = [/\.publish\(\s*[^,()]+,\s*"([^"]+)"/g, /\.agentEvent\(\s*[^,()]+,\s*"([^"]+)"/g, /\bframe\(\s*"([^"]+)"/g];
  const names = new Map<string, Set<string>>();
  for (const file of ["durable-objects", "bindings", "workers", "core"].flatMap(sources)) {
    const text = readFileSync(file, "utf8");
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const name = match[1]!;
        if (!names.has(name)) names.set(name, new Set());
        names.get(name)!.add(relative(ROOT, file));
      }
    }
  }
  return names;
}

const documented = new Set(Object.values(EVENT_STREAMS).flatMap((events) => Object.keys(events)));

describe("the event streams' schemas", () => {
  it("SSE-004 / SSE-005 / SSE-006: every event name an emitter sends has a schema, and every schema is of an event that is sent", () => {
    const sent = emitted();
    const unknown = [...sent].filter(([name]) => !documented.has(name)).map(([name, files]) => `${name} (${[...files].join(", ")})`);
    expect(unknown, "events sent with no schema in core/events/streams.ts").toEqual([]);
    // The scan sees the emitters (a pattern that stopped matching would pass the check above vacuously).
    expect([...documented].filter((name) => !sent.has(name))).toEqual([]);
    expect(sent.get("run.continued")).toEqual(new Set(["durable-objects/agent/run/chain.ts"]));
    expect(sent.get("agent.scripts.changed")).toEqual(new Set(["bindings/script-events.ts"]));
  });

  it("SSE-006: each stream names its own events: rows and status on all three, deltas and errors on a run's, deliveries and gaps on a guild's", () => {
    expect(Object.keys(RUN_EVENTS)).toEqual(["message", "delta", "status", "error", "run.continued"]);
    expect(Object.keys(GUILD_EVENTS)).toEqual(["message", "gap", "delivery", "status", "agent.scripts.changed"]);
    expect(Object.keys(TASK_EVENTS)).toEqual(["message", "status", "task.status", "task.run_started", "task.run_ended", "task.pull_request", "task.checks"]);
  });

  it("SSE-001 / SSE-002: the events as the hub sends them parse against their schemas; a wrong shape does not", () => {
    const runId = "6f1c2c2e-5b7a-4d55-9a43-0c8d7e1f2a3b";
    const row = {
      seq: 2,
      generation: 1,
      role: "assistant",
      payload: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "memory_read", arguments: "{}" } }] },
      metadata: { source: "model", model: "m", usage: { prompt_tokens: 10, completion_tokens: 2 }, projection: { pressure_stubbed: [] } },
      cost_usd: "0.000100",
      created_at: "2026-01-01T00:00:00.000Z",
    };
    const stream = eventStreamSchema("RunEventTest", RUN_EVENTS, "test");
    expect(stream.safeParse({ event: "message", id: "2", data: row }).success).toBe(true);
    expect(stream.safeParse({ event: "delta", data: { run_id: runId, generation: 1, kind: "content", text: "Hi" } }).success).toBe(true);
    expect(stream.safeParse({ event: "status", data: { run_id: runId, generating: false } }).success).toBe(true);
    expect(stream.safeParse({ event: "run.continued", data: { run_id: runId, previous_run_id: runId, root_run_id: runId, index: 2 } }).success).toBe(true);
    // A tool payload without its call id, an unknown event name, a delta of another kind.
    expect(stream.safeParse({ event: "message", id: "2", data: { ...row, payload: { role: "tool", content: "x" } } }).success).toBe(false);
    expect(stream.safeParse({ event: "rows", data: row }).success).toBe(false);
    expect(stream.safeParse({ event: "delta", data: { run_id: runId, generation: 1, kind: "other", text: "" } }).success).toBe(false);
  });
});
