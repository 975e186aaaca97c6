import { describe, expect, it } from "vitest";
import { agentIdle, expectNoGap, guildWithAgent, readRun, script, transcript, type WireRow } from "./agents";
import { expectResolvedCalls, nextMessageAnswered, ownStack, rodeOut, runPastFirstTool, until } from "./own-stack";

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

const own = ownStack("outage");
const { call } = own;

/** Polls `read` until `done` holds, for up to `timeoutMs` (30 s). */
const settled = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000) => until(what, read, done, timeoutMs);

/** Stops the stack's Postgres for OUTAGE_MS, then starts it again. */
async function outage() {
  await own.stack.database!.stop();
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  await own.stack.database!.start();
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
  settled(
    `run ${runId} has no tool result`,
    () => transcript(runId, own.target),
    (rows) => Array.isArray(rows) && rows.some((r) => r.role === "tool"),
  );

describe("Postgres unreachable mid-generation", () => {
  it("CANCEL-005 / GEN-002 / HARDEN-2: a direct run rides out a 10 s database outage: the reply answered during it is committed after it, no partial or lost row, lock free, the next message works", async () => {
    const { agentId, runId, before } = await runPastFirstTool(own, "Outage", OUTAGE_SCRIPT, 30_000);

    await outage();

    const rows = await rodeOut(own, runId, 30_000);
    expectWholeRows(rows);
    expectKept(before, rows);
    expectResolvedCalls(rows);
    expectAnsweredDuringOutage(rows);
    for (const path of [`/api/runs/${runId}`, `/api/runs/${runId}/messages`, `/api/agents/${agentId}/runs`, `/api/agents/${agentId}/status`]) {
      const read = await call("GET", path);
      expect.soft(read.status, `GET ${path}: ${read.text}`).toBe(200);
    }

    await nextMessageAnswered(own, runId, agentId);
  }, 120_000);

  it("CANCEL-008 / GROUP-014 / HARDEN-2: a group run caught by a 10 s database outage completes without loss, its delivery cursor advances, the next post is delivered alone", async () => {
    const { guildId, agentId, model } = await guildWithAgent("Outage chat", own.target);
    await script(model, OUTAGE_SCRIPT, own.target);
    const posted = await call("POST", `/api/guilds/${guildId}/chat`, { content: "news before the outage" });
    expect(posted.status, posted.text).toBe(201);
    const listGroup = async () => (await call("GET", `/api/agents/${agentId}/runs?kind=group`)).json.data as Array<{ id: string }>;
    const [opened] = await settled("no group run opened", listGroup, (runs) => Array.isArray(runs) && runs.length === 1);
    const before = await firstToolResult(opened!.id);

    await outage();

    const run = await settled(
      `group run ${opened!.id} not completed`,
      () => readRun(opened!.id, own.target),
      (r) => r?.generating === false && r.status === "completed",
    );
    expect.soft(run.metadata.group_chat_through_seq).toBe(posted.json.seq);
    expect.soft(run.errors, "the generation waited for the database instead of failing").toEqual([]);
    const rows = await transcript(run.id, own.target);
    expectNoGap(rows, run.id);
    expectWholeRows(rows);
    expectKept(before, rows);
    expectResolvedCalls(rows);
    expectAnsweredDuringOutage(rows);
    await agentIdle(agentId, own.target);

    // The cursor advanced through the cut run: the next post opens one run covering it alone.
    const later = await call("POST", `/api/guilds/${guildId}/chat`, { content: "news after the outage" });
    expect(later.status, later.text).toBe(201);
    const runs = await settled("the next post was not delivered", listGroup, (list) => Array.isArray(list) && list.length >= 2, 45_000);
    await agentIdle(agentId, own.target);
    const next = await readRun(runs[0]!.id, own.target);
    expect(next.metadata).toMatchObject({ group_chat_after_seq: posted.json.seq, group_chat_through_seq: later.json.seq });
    expect(next.status).toBe("completed");
    expect((await listGroup()).length).toBe(2);
  }, 150_000);
});
