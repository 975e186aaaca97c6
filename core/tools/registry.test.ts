import { describe, expect, it } from "vitest";
import * as z from "zod";
import { MemoryNotesRecordsStore } from "./memory-store";
import { offeredTools, runTool, toolSchemas } from "./registry";
import type { AnyToolDefinition, ToolContext } from "./types";

const ctx = (): ToolContext => ({
  agentId: "agent-1",
  runId: "run-1",
  toolCallId: "call-1",
  now: () => new Date("2026-01-01T00:00:00Z"),
  store: new MemoryNotesRecordsStore(() => new Date("2026-01-01T00:00:00Z")),
});

const boom: AnyToolDefinition = {
  name: "boom",
  description: "always fails",
  binding: "test",
  parameters: z.strictObject({}),
  execute: async () => {
    throw new Error("disk on fire");
  },
};

const NAMES = ["note_write", "note_read", "note_list", "note_delete", "record_create", "record_list"];
const SCHEDULE_NAMES = ["schedule_create", "schedule_list", "schedule_update", "schedule_pause", "schedule_resume", "schedule_delete"];

describe("offeredTools", () => {
  it("EXACT-011/OP-EXACT-3: note and record tools are offered on every run kind, in a fixed order", () => {
    for (const kind of ["direct", "group", "schedule"] as const) {
      expect(
        offeredTools({ kind })
          .map((t) => t.name)
          .slice(0, NAMES.length),
      ).toEqual(NAMES);
    }
    expect(new Set(offeredTools({ kind: "direct" }).map((t) => t.binding))).toEqual(new Set(["note", "record", "schedule", "secret_store", "secret_request"]));
  });

  it("TASK-012 / TASK-015 / TASK-016: a task run offers notes, records, the coding tools and the two task tools, whatever the agent's other flags", () => {
    const flags = { kind: "task", memory: true, scripting: true, browser: true, group_post: true, coding: false } as const;
    expect([...new Set(offeredTools(flags).map((t) => t.binding))]).toEqual(["note", "record", "coding", "task"]);
    expect(
      offeredTools(flags)
        .slice(-2)
        .map((t) => t.name),
    ).toEqual(["complete_task", "ask_question"]);
    expect(offeredTools({ kind: "direct", coding: true }).some((t) => t.binding === "task")).toBe(false);
  });

  it("TASK-015 / TASK-016: the task tools tell the run, and refuse where there is no task", async () => {
    const told: unknown[] = [];
    const task = { complete: (summary: string) => told.push({ summary }), ask: (question: string, blocking: boolean) => told.push({ question, blocking }) };
    const tools = offeredTools({ kind: "task" });
    const ctx = { agentId: "a", runId: "r", toolCallId: "c", now: () => new Date(0), store: new MemoryNotesRecordsStore() } as ToolContext;
    expect((await runTool(tools, "complete_task", '{"summary":"done"}', { ...ctx, task })).content).toContain("complete");
    expect((await runTool(tools, "ask_question", '{"question":"Which API?","blocking":true}', { ...ctx, task })).content).toContain("End your turn");
    expect(told).toEqual([{ summary: "done" }, { question: "Which API?", blocking: true }]);
    expect((await runTool(tools, "complete_task", '{"summary":"done"}', ctx)).content).toMatch(/^ERROR: complete_task is only offered on task runs/);
  });

  it("EXACT-017 / SCHED-037: the six schedule tools are offered on direct and group runs, not on schedule runs", () => {
    expect(offeredTools({ kind: "direct" }).map((t) => t.name)).toEqual([...NAMES, ...SCHEDULE_NAMES, "secret_store", "secret_request"]);
    expect(offeredTools({ kind: "group" }).map((t) => t.name)).toEqual([...NAMES, ...SCHEDULE_NAMES, "secret_store"]);
    expect(offeredTools({ kind: "schedule" }).map((t) => t.name)).toEqual([...NAMES, "secret_store"]);
  });

  it("EXACT-016 / SEC-012: secret_store is offered on every run, secret_request on direct runs only", () => {
    for (const kind of ["direct", "group", "schedule"] as const) {
      const names = offeredTools({ kind, group_post: true }).map((t) => t.name);
      expect(names).toContain("secret_store");
      expect(names.includes("secret_request")).toBe(kind === "direct");
      // After group_post, where the sandbox bindings follow.
      if (kind !== "schedule") expect(names.indexOf("secret_store")).toBeGreaterThan(names.indexOf("group_post"));
    }
  });

  it("EXACT-015: tavily_search is offered only when the platform has TAVILY_API_KEY (flags.search), never on task runs", () => {
    for (const kind of ["direct", "group", "schedule"] as const) {
      expect(offeredTools({ kind }).some((t) => t.name === "tavily_search")).toBe(false);
      expect(offeredTools({ kind, search: false }).some((t) => t.name === "tavily_search")).toBe(false);
      const names = offeredTools({ kind, search: true, scripting: true, memory: true }).map((t) => t.name);
      // After memory and the script tools, before the schedule and secret tools.
      expect(names.indexOf("tavily_search")).toBe(names.indexOf("script_delete") + 1);
    }
    expect(offeredTools({ kind: "task", search: true }).some((t) => t.name === "tavily_search")).toBe(false);
    // The same flags give the same schemas (EXACT-005): the key's presence is part of them.
    expect(toolSchemas(offeredTools({ kind: "direct", search: true }))).toEqual(toolSchemas(offeredTools({ kind: "direct", search: true })));
  });

  it("later bindings plug in by flags", () => {
    const extra = { binding: "memory", offered: (f: { memory?: boolean }) => f.memory === true, tools: [boom] };
    expect(offeredTools({ kind: "direct", memory: true }, [extra]).map((t) => t.name)).toEqual(["boom"]);
    expect(offeredTools({ kind: "direct", memory: false }, [extra])).toEqual([]);
  });
});

describe("toolSchemas", () => {
  const schemas = toolSchemas(offeredTools({ kind: "direct" }));

  it("EXACT-010: Chat Completions function schemas without $schema, deterministic", () => {
    expect(schemas.map((s) => s.function.name)).toEqual([...NAMES, ...SCHEDULE_NAMES, "secret_store", "secret_request"]);
    for (const schema of schemas) {
      expect(schema.type).toBe("function");
      expect(schema.function.description.length).toBeGreaterThan(0);
      expect(schema.function.parameters).toMatchObject({ type: "object", additionalProperties: false });
      expect("$schema" in schema.function.parameters).toBe(false);
    }
    expect(JSON.stringify(toolSchemas(offeredTools({ kind: "direct" })))).toBe(JSON.stringify(schemas));
  });

  it("describes the arguments the model writes: defaulted fields are optional", () => {
    const recordList = schemas.find((s) => s.function.name === "record_list")!.function.parameters;
    expect(recordList.required ?? []).toEqual([]);
    expect(recordList.properties).toMatchObject({ limit: { type: "integer", maximum: 100, default: 20 } });
    const noteWrite = schemas.find((s) => s.function.name === "note_write")!.function.parameters;
    expect(noteWrite.required).toEqual(["title", "body"]);
  });

  it("refuses duplicate names", () => {
    expect(() => toolSchemas([boom, boom])).toThrow("duplicate tool name boom");
  });
});

describe("runTool", () => {
  const tools = [...offeredTools({ kind: "direct" }), boom];

  it("unknown tool", async () => {
    expect(await runTool(tools, "nope", "{}", ctx())).toEqual({ content: "ERROR: unknown tool nope" });
  });

  it("arguments that are not a JSON object", async () => {
    for (const raw of ["{not json", "[1,2]", "null", "42", '"text"']) {
      expect((await runTool(tools, "note_read", raw, ctx())).content).toBe("ERROR: arguments must be a JSON object");
    }
  });

  it("invalid arguments name each field and its problem", async () => {
    const result = await runTool(tools, "note_write", JSON.stringify({ title: "", body: 5, extra: true }), ctx());
    expect(result.content).toMatch(/^ERROR: invalid arguments: /);
    expect(result.content).toContain("title: Too small");
    expect(result.content).toContain("body: Invalid input: expected string, received number");
    expect(result.content).toContain("extra: unknown field");
  });

  it("an exception in execute becomes an ERROR result and nothing throws", async () => {
    expect(await runTool(tools, "boom", "{}", ctx())).toEqual({ content: "ERROR: disk on fire" });
    const throwsString = { ...boom, execute: async () => Promise.reject("plain string") };
    expect(await runTool([throwsString], "boom", "{}", ctx())).toEqual({ content: "ERROR: plain string" });
    await expect(runTool(tools, "note_list", undefined as unknown as string, ctx())).resolves.toEqual({
      content: "ERROR: arguments must be a JSON object",
    });
  });

  it("empty arguments count as {}", async () => {
    expect((await runTool(tools, "note_list", "", ctx())).content).toBe('{"count":0,"notes":[]}');
  });

  it("passes the validated, defaulted arguments to execute", async () => {
    const c = ctx();
    await runTool(tools, "record_create", '{"content":"hello"}', c);
    const listed = JSON.parse((await runTool(tools, "record_list", "{}", c)).content);
    expect(listed.records[0]).toMatchObject({ kind: "note", content: "hello", run_id: "run-1" });
  });
});
