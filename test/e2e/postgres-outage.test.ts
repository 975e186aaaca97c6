import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/stack/ports";
import { type Stack, startStack } from "../../scripts/stack/stack";
import { agentIdle, errorCodes, expectNoGap, guildWithAgent, readRun, script, type Target, transcript, type WireRow } from "./agents";
import { api } from "./http";

/**
 * A platform failure mid-generation (ERR, CANCEL): the stack's own Postgres really stops
 * for 10 s while a run generates, then starts again. This file starts its own stack, so
 * stopping its database disturbs no other test.
 */

const OUTAGE_MS = 10_000;
/** A tool call whose result commits before the outage, then a reply that comes back during it. */
const OUTAGE_SCRIPT = [
  { tool_calls: [{ name: "note_write", arguments: { title: "before", body: "written before the outage" } }], delay_ms: 300 },
  { tool_calls: [{ name: "note_write", arguments: { title: "during", body: "answered while Postgres is down" } }], delay_ms: 3_000 },
];

let stack: Stack;
let target: Target;
const stateDir = mkdtempSync(join(tmpdir(), "guilds-outage-"));

beforeAll(async () => {
  // As root, Postgres runs as its own user, who must be able to reach its data folder.
  chmodSync(stateDir, 0o755);
  const output: string[] = [];
  stack = await startStack({ port: await freePort(), stateDir, output: (line) => output.push(line) }).catch((error: unknown) => {
    console.error(output.slice(-40).join("\n"));
    throw error;
  });
  target = { base: stack.apiUrl, token: stack.token, mockUrl: stack.mockModelUrl! };
});

afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) => api(method, path, { base: target.base, token: target.token, body });

/** Polls `read` until `done` holds; throws with the last value after `timeoutMs`. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch((error: unknown) => error as T);
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Stops the stack's Postgres for OUTAGE_MS, then starts it again. */
async function outage() {
  await stack.database!.stop();
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  await stack.database!.start();
}

/** Every stored row is whole JSON of its role. */
function expectWholeRows(rows: WireRow[]) {
  for (const row of rows) {
    const p = row.payload;
    expect.soft(p.role, `row ${row.seq}`).toBe(row.role);
    if (row.role === "system" || row.role === "user") expect.soft(typeof p.content, `row ${row.seq} content`).toBe("string");
    if (row.role === "tool") {
      expect.soft(typeof p.tool_call_id, `row ${row.seq} tool_call_id`).toBe("string");
      expect.soft(typeof p.content, `row ${row.seq} content`).toBe("string");
    }
    if (row.role === "assistant") {
      expect.soft(p.content === null || typeof p.content === "string", `row ${row.seq} content`).toBe(true);
      for (const call of p.tool_calls ?? []) {
        expect
          .soft(call, `row ${row.seq} tool call`)
          .toMatchObject({ id: expect.any(String), type: "function", function: { name: expect.any(String), arguments: expect.any(String) } });
        expect.soft(() => JSON.parse(call.function.arguments), `row ${row.seq} arguments`).not.toThrow();
      }
    }
  }
}

/** Every tool call in the transcript has exactly one result row after it (CANCEL-005). */
function expectResolvedCalls(rows: WireRow[]) {
  const calls = rows.flatMap((r) => (r.role === "assistant" ? (r.payload.tool_calls ?? []).map((c: { id: string }) => c.id) : []));
  const results = rows.filter((r) => r.role === "tool").map((r) => r.payload.tool_call_id);
  expect.soft(results.sort(), "tool results for every tool call").toEqual([...calls].sort());
}

/** The rows committed before the outage are still stored, unchanged. */
function expectKept(before: WireRow[], after: WireRow[]) {
  expect.soft(after.slice(0, before.length), "rows committed before the outage").toEqual(before);
}

/** The model's reply that arrived while Postgres was down was committed once it came back, and its tool ran. */
function expectAnsweredDuringOutage(rows: WireRow[]) {
  const during = rows.filter((r) => r.role === "assistant" && JSON.stringify(r.payload.tool_calls ?? []).includes("answered while Postgres is down"));
  expect.soft(during, "the reply answered during the outage, committed once").toHaveLength(1);
  const callId = during[0]?.payload.tool_calls[0].id;
  expect
    .soft(rows.filter((r) => r.role === "tool" && r.payload.tool_call_id === callId).map((r) => r.payload.content.split("\n")[0]))
    .toEqual(['Saved note "during" (created, 31 bytes).']);
}

/** Waits until the run's rows include the first tool result: the outage then hits the second model call. */
const firstToolResult = (runId: string) =>
  until(
    `run ${runId} has no tool result`,
    () => transcript(runId, target),
    (rows) => Array.isArray(rows) && rows.some((r) => r.role === "tool"),
  );

describe("Postgres unreachable mid-generation", () => {
  it("CANCEL-005 / GEN-002 / HARDEN-2: a direct run rides out a 10 s database outage: the reply answered during it is committed after it, no partial or lost row, lock free, the next message works", async () => {
    const { agentId, model } = await guildWithAgent("Outage", target);
    await script(model, OUTAGE_SCRIPT, target);
    const started = await call("POST", `/api/agents/${agentId}/runs`, { message: "write two notes" });
    expect(started.status, started.text).toBe(201);
    const runId = started.json.id as string;
    const before = await firstToolResult(runId);

    await outage();

    const after = await until(
      `run ${runId} still generating or unreadable`,
      () => readRun(runId, target),
      (run) => run?.generating === false,
    );
    expect.soft(after.status, "a direct run stays active").toBe("active");
    expect.soft(after.errors, "the generation waited for the database instead of failing").toEqual([]);
    expect.soft(errorCodes(after), "no false interruption").not.toContain("generation.interrupted");
    const rows = await transcript(runId, target);
    expectNoGap(rows, runId);
    expectWholeRows(rows);
    expectKept(before, rows);
    expectResolvedCalls(rows);
    expectAnsweredDuringOutage(rows);
    for (const path of [`/api/runs/${runId}`, `/api/runs/${runId}/messages`, `/api/agents/${agentId}/runs`, `/api/agents/${agentId}/status`]) {
      const read = await call("GET", path);
      expect.soft(read.status, `GET ${path}: ${read.text}`).toBe(200);
    }

    const next = await call("POST", `/api/runs/${runId}/messages`, { content: "are you back?" });
    expect(next.status, next.text).toBe(202);
    await agentIdle(agentId, target);
    const final = await transcript(runId, target);
    expectNoGap(final, runId);
    expect(final.at(-1)!.payload).toEqual({ role: "assistant", content: "echo: are you back?" });
  }, 120_000);

  it("CANCEL-008 / GROUP-014 / HARDEN-2: a group run caught by a 10 s database outage completes without loss, its delivery cursor advances, the next post is delivered alone", async () => {
    const { guildId, agentId, model } = await guildWithAgent("Outage chat", target);
    await script(model, OUTAGE_SCRIPT, target);
    const posted = await call("POST", `/api/guilds/${guildId}/chat`, { content: "news before the outage" });
    expect(posted.status, posted.text).toBe(201);
    const listGroup = async () => (await call("GET", `/api/agents/${agentId}/runs?kind=group`)).json.data as Array<{ id: string }>;
    const [opened] = await until("no group run opened", listGroup, (runs) => Array.isArray(runs) && runs.length === 1);
    const before = await firstToolResult(opened!.id);

    await outage();

    const run = await until(
      `group run ${opened!.id} not completed`,
      () => readRun(opened!.id, target),
      (r) => r?.generating === false && r.status === "completed",
    );
    expect.soft(run.metadata.group_chat_through_seq).toBe(posted.json.seq);
    expect.soft(run.errors, "the generation waited for the database instead of failing").toEqual([]);
    const rows = await transcript(run.id, target);
    expectNoGap(rows, run.id);
    expectWholeRows(rows);
    expectKept(before, rows);
    expectResolvedCalls(rows);
    expectAnsweredDuringOutage(rows);
    await agentIdle(agentId, target);

    // The cursor advanced through the cut run: the next post opens one run covering it alone.
    const later = await call("POST", `/api/guilds/${guildId}/chat`, { content: "news after the outage" });
    expect(later.status, later.text).toBe(201);
    const runs = await until("the next post was not delivered", listGroup, (list) => Array.isArray(list) && list.length >= 2, 45_000);
    await agentIdle(agentId, target);
    const next = await readRun(runs[0]!.id, target);
    expect(next.metadata).toMatchObject({ group_chat_after_seq: posted.json.seq, group_chat_through_seq: later.json.seq });
    expect(next.status).toBe("completed");
    expect((await listGroup()).length).toBe(2);
  }, 150_000);
});
