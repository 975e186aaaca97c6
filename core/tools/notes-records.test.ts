import { beforeEach, describe, expect, it } from "vitest";
import { MemoryNotesRecordsStore } from "./memory-store";
import { offeredTools, runTool } from "./registry";
import type { ToolContext } from "./types";

let clock: Date;
let store: MemoryNotesRecordsStore;
const tools = offeredTools({ kind: "direct" });
const ctx = (agentId = "agent-1", runId = "run-1"): ToolContext => ({
  agentId,
  runId,
  toolCallId: "call-1",
  now: () => clock,
  store,
});
const call = (name: string, args: unknown, context = ctx()) => runTool(tools, name, JSON.stringify(args), context);

beforeEach(() => {
  clock = new Date("2026-01-01T00:00:00Z");
  store = new MemoryNotesRecordsStore(() => clock);
});

describe("note tools", () => {
  it("write, read (with metadata.path), replace, list and delete", async () => {
    expect((await call("note_write", { title: " plan ", body: "1. read" })).content).toBe('Saved note "plan" (created, 7 bytes).');
    expect(await call("note_read", { title: "plan" })).toEqual({ content: "1. read", metadata: { path: "notes/plan" } });
    expect((await call("note_write", { title: "plan", body: "2. write" })).content).toContain("replaced");
    expect((await call("note_read", { title: "plan" })).content).toBe("2. write");
    expect(JSON.parse((await call("note_list", {})).content)).toEqual({
      count: 1,
      notes: [{ title: "plan", updated_at: "2026-01-01T00:00:00.000Z" }],
    });
    expect((await call("note_delete", { title: "plan" })).content).toBe('Deleted note "plan".');
    expect((await call("note_read", { title: "plan" })).content).toMatch(/^ERROR: no note titled "plan"/);
    expect((await call("note_delete", { title: "plan" })).content).toMatch(/^ERROR: no note titled "plan"/);
  });

  it("notes belong to one agent", async () => {
    await call("note_write", { title: "private", body: "x" });
    expect((await call("note_read", { title: "private" }, ctx("agent-2"))).content).toMatch(/^ERROR/);
  });

  it("titles are one line", async () => {
    const result = await call("note_write", { title: "a\nb", body: "x" });
    expect(result.content).toBe("ERROR: invalid arguments: title: must be one line without control characters");
  });

  it("an empty note reads as (empty note)", async () => {
    await call("note_write", { title: "blank", body: "" });
    expect((await call("note_read", { title: "blank" })).content).toBe("(empty note)");
  });
});

describe("record tools", () => {
  it("record_create stores kind, content, data and the run id", async () => {
    const created = JSON.parse((await call("record_create", { kind: "lead", content: "Acme", data: { size: 3 } })).content);
    expect(created).toEqual({ id: 1, kind: "lead", created_at: "2026-01-01T00:00:00.000Z" });
    expect(store.records[0]).toMatchObject({ agentId: "agent-1", runId: "run-1", kind: "lead", content: "Acme", data: { size: 3 } });
  });

  it("record_list is newest first, since is exclusive, and sets path and range", async () => {
    for (const [i, time] of ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"].entries()) {
      clock = new Date(time);
      await call("record_create", { content: `r${i}` });
    }
    const all = JSON.parse((await call("record_list", {})).content);
    expect(all.records.map((r: { content: string }) => r.content)).toEqual(["r2", "r1", "r0"]);
    const since = await call("record_list", { since: "2026-01-02T00:00:00Z", limit: 5 });
    expect(JSON.parse(since.content).records.map((r: { content: string }) => r.content)).toEqual(["r2"]);
    expect(since.metadata).toEqual({ path: "records", range: "since=2026-01-02T00:00:00.000Z limit=5" });
    expect(JSON.parse((await call("record_list", { since: null, limit: 1 })).content).count).toBe(1);
  });

  it("record_list rejects limit above 100 and times that are not ISO 8601", async () => {
    expect((await call("record_list", { limit: 101 })).content).toMatch(/^ERROR: invalid arguments: limit: Too big/);
    expect((await call("record_list", { since: "yesterday" })).content).toBe(
      "ERROR: invalid arguments: since: must be an ISO 8601 time such as 2026-01-01T00:00:00Z",
    );
    expect((await call("record_list", { since: "2026-01-02T00:00:00" })).content).toMatch(/^ERROR/); // no zone
  });

  it("record_create rejects empty content and odd kinds", async () => {
    const result = await call("record_create", { kind: "Not A Kind", content: "" });
    expect(result.content).toContain("kind: must be 1-64 characters");
    expect(result.content).toContain("content: Too small");
  });
});
