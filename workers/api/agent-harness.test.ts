import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { readOpeningState } from "../../core/db/agent-state";
import { agents, runs } from "../../core/db/schema";
import type { RunSnapshot } from "../../core/runs/snapshot";
import { CLAUDE_CODE_VERSION, DEFAULT_TASK_HARNESS } from "../../core/tasks/harness";
import { writeOpening } from "../../durable-objects/agent/run/opening";
import { call, seedGuild } from "../../test/workerd/seed";
import { withDb } from "../../test/workerd/tasks";

const claudeCode = {
  kind: "claude-code",
  model: "claude-sonnet-4-5",
  max_turns: 40,
  permission_mode: "acceptEdits",
  allowed_tools: ["Edit", "Bash(git:*)"],
  disallowed_tools: ["WebFetch"],
  extra_flags: ["--add-dir", "/data/workspace/lib", "--strict-mcp-config"],
  model_api: "anthropic",
};

const storedHarness = (id: string) => withDb(async (db) => (await db.select({ h: agents.taskHarness }).from(agents).where(eq(agents.id, id)))[0]!.h);

/** A 422's named fields. */
const fieldsOf = (res: { status: number; json: any }) => {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expect(res.json.error.code).toBe("validation.failed");
  return (res.json.error.details.fields as Array<{ field: string }>).map((f) => f.field);
};

describe("an agent's task harness", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  const create = (body: Record<string, unknown>) => call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "Coder", ...body } });
  const patch = (id: string, body: Record<string, unknown>) => call("PATCH", `/api/agents/${id}`, { token, body });
  const read = async (id: string) => (await call("GET", `/api/agents/${id}`, { token })).json;

  it("TASK-012: an agent answers its harness settings, defaults filled in, and stores only what it was given", async () => {
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.json.task_harness).toEqual(DEFAULT_TASK_HARNESS);
    expect(await storedHarness(plain.json.id)).toEqual({});

    const coder = await create({ coding: true, task_harness: { kind: "claude-code", max_turns: 12 } });
    expect(coder.status, JSON.stringify(coder.json)).toBe(201);
    expect(coder.json.task_harness).toEqual({ ...DEFAULT_TASK_HARNESS, kind: "claude-code", max_turns: 12 });
    expect(await storedHarness(coder.json.id)).toEqual({ kind: "claude-code", max_turns: 12 });
    expect((await read(coder.json.id)).task_harness).toEqual(coder.json.task_harness);
  });

  it("TASK-012: a PATCH merges the harness fields it names over the stored ones; null resets them to the defaults", async () => {
    const { id } = (await create({ coding: true, task_harness: claudeCode })).json;
    expect((await read(id)).task_harness).toEqual(claudeCode);
    const merged = await patch(id, { task_harness: { max_turns: 7, model: null } });
    expect(merged.status).toBe(200);
    expect(merged.json.task_harness).toEqual({ ...claudeCode, max_turns: 7, model: null });
    // A change of other fields leaves the harness as it is.
    expect((await patch(id, { max_scripts: 3 })).json.task_harness).toEqual({ ...claudeCode, max_turns: 7, model: null });
    const reset = await patch(id, { task_harness: null });
    expect(reset.json.task_harness).toEqual(DEFAULT_TASK_HARNESS);
    expect(await storedHarness(id)).toEqual({});
  });

  it("TASK-012: a bad harness is 422 naming the field exactly, and nothing of the body is written", async () => {
    const { id } = (await create({ coding: true, task_harness: { kind: "claude-code" } })).json;
    const before = await read(id);
    expect(fieldsOf(await patch(id, { name: "Renamed", task_harness: { max_turns: 0 } }))).toEqual(["task_harness.max_turns"]);
    expect(fieldsOf(await patch(id, { task_harness: { extra_flags: ["--effort", "high", "--output-format", "json"] } }))).toEqual([
      "task_harness.extra_flags.2",
    ]);
    expect(fieldsOf(await patch(id, { task_harness: { extra_flags: ["--add-dir", "/etc"] } }))).toEqual(["task_harness.extra_flags.1"]);
    expect(fieldsOf(await patch(id, { task_harness: { allowed_tools: ["Bash, Edit"] } }))).toEqual(["task_harness.allowed_tools.0"]);
    expect(fieldsOf(await patch(id, { task_harness: { permission_mode: "yolo" } }))).toEqual(["task_harness.permission_mode"]);
    expect(fieldsOf(await patch(id, { task_harness: { harness: "x" } }))).toEqual(["task_harness.harness"]);
    // Coding off under a Claude Code harness: the harness is what must change first.
    expect(fieldsOf(await patch(id, { name: "Renamed", coding: false }))).toEqual(["task_harness.kind"]);
    expect(await read(id)).toEqual(before);
    expect(await storedHarness(id)).toEqual({ kind: "claude-code" });
    // Both at once is accepted.
    expect((await patch(id, { coding: false, task_harness: { kind: "platform" } })).json).toMatchObject({ coding: false, task_harness: { kind: "platform" } });
  });

  it("TASK-012: a claude-code harness on an agent that is not a coding agent is refused at task_harness.kind, and no agent is created", async () => {
    const listed = async () => (await call("GET", `/api/agents?guild_id=${guildId}&limit=100`, { token })).json.data.length;
    const count = await listed();
    expect(fieldsOf(await create({ task_harness: { kind: "claude-code" } }))).toEqual(["task_harness.kind"]);
    expect(fieldsOf(await create({ coding: true, task_harness: { max_turns: 1001 } }))).toEqual(["task_harness.max_turns"]);
    expect(await listed()).toBe(count);
    const { id } = (await create({})).json;
    expect(fieldsOf(await patch(id, { task_harness: { kind: "claude-code" } }))).toEqual(["task_harness.kind"]);
    expect((await patch(id, { coding: true, task_harness: { kind: "claude-code" } })).status).toBe(200);
  });

  it("EXACT-008 / EXACT-026: a coding agent's runs record their harness: a task run the agent's, a chat the platform's; a later change reaches new runs only", async () => {
    const { id } = (await create({ coding: true, model: "lead-model", task_harness: { ...claudeCode, model: null } })).json;
    const chat = (await call("POST", `/api/agents/${id}/runs`, { token, body: {} })).json;
    const chatRun = (await call("GET", `/api/runs/${chat.id}`, { token })).json;
    expect(chatRun.snapshot.harness).toEqual({ kind: "platform", version: "platform", settings: {} });

    const taskRunId = crypto.randomUUID();
    await withDb(async (db) => {
      const state = await readOpeningState(db, id, new Date());
      expect(await writeOpening(db, state!, taskRunId, new Date(), { kind: "task", run: { title: "APP-1: a task", metadata: {} } })).not.toBeNull();
    });
    const { kind: _kind, ...settings } = claudeCode;
    const recorded = { kind: "claude-code", version: CLAUDE_CODE_VERSION, settings: { ...settings, model: "lead-model" } };
    const snapshotOf = (runId: string) =>
      withDb(async (db) => (await db.select({ s: runs.snapshot }).from(runs).where(eq(runs.id, runId)))[0]!.s as RunSnapshot);
    expect((await snapshotOf(taskRunId)).harness).toEqual(recorded);
    expect((await snapshotOf(taskRunId)).version).toBe(1);
    expect((await call("GET", `/api/runs/${taskRunId}`, { token })).json.snapshot.harness).toEqual(recorded);

    await patch(id, { task_harness: { max_turns: 3 } });
    expect((await snapshotOf(taskRunId)).harness).toEqual(recorded);
    const nextRunId = crypto.randomUUID();
    await withDb(async (db) => {
      const state = await readOpeningState(db, id, new Date());
      await writeOpening(db, state!, nextRunId, new Date(), { kind: "task", run: { title: "APP-1: a task", metadata: {} } });
    });
    expect((await snapshotOf(nextRunId)).harness?.settings).toMatchObject({ max_turns: 3 });

    const other = (await create({})).json;
    const plainRun = (await call("POST", `/api/agents/${other.id}/runs`, { token, body: {} })).json;
    expect((await call("GET", `/api/runs/${plainRun.id}`, { token })).json.snapshot).not.toHaveProperty("harness");
  });
});
