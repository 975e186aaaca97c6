import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../core/db/client";
import { messages, runs } from "../../../core/db/schema";
import { modelRequests, newAgent, objectOf, rows, script, settled, untilGenerating } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";
import { HEARTBEAT } from "../state/generation-lock";

/** Resets the object as an eviction or crash would; its storage stays. */
async function evict(stub: DurableObjectStub<AgentObject>) {
  await runInDurableObject(stub, (_object: AgentObject, state) => state.abort("evicted")).catch(() => {});
}

/** Makes the heartbeat deadline due and runs the alarm, then waits for the lock to be free. */
async function heartbeatNow(stub: DurableObjectStub<AgentObject>) {
  await runInDurableObject(stub, async (object: AgentObject) => {
    object.now = () => Date.now() + 120_000;
  });
  await runDurableObjectAlarm(stub);
  for (let i = 0; i < 100 && (await stub.generationState()).generating; i++) await new Promise((r) => setTimeout(r, 20));
  expect((await stub.generationState()).generating).toBe(false);
}

describe("recovery after an eviction", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("CANCEL-005 / CANCEL-006 / CANCEL-007 / ERR-015: an object lost mid-tool leaves interruption results for unresolved calls, a free lock, and no replayed model call", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    // The state an eviction leaves: the assistant row with two calls committed, one result written.
    const { db, close } = openDatabase(env);
    await db.insert(messages).values([
      { runId: run.id, seq: 1, generation: 1, role: "user", payload: { role: "user", content: "go" }, metadata: {}, tokenCount: 5 },
      {
        runId: run.id,
        seq: 2,
        generation: 1,
        role: "assistant",
        payload: {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c1", type: "function", function: { name: "note_list", arguments: "{}" } },
            { id: "c2", type: "function", function: { name: "note_read", arguments: '{"title":"x"}' } },
          ],
        },
        metadata: {},
        tokenCount: 20,
      },
      {
        runId: run.id,
        seq: 3,
        generation: 1,
        role: "tool",
        payload: { role: "tool", tool_call_id: "c1", content: "[]\nremaining_tool_calls: 49" },
        metadata: { tool_name: "note_list" },
        tokenCount: 9,
      },
    ]);
    await db.update(runs).set({ generation: 1 }).where(eq(runs.id, run.id));
    await close();
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, async (object: AgentObject) => {
      expect(object.rooms.context.lock.stored.acquire(run.id, 1, 60_000).ok).toBe(true);
      await object.rooms.context.deadlines.set(HEARTBEAT, object.now() + 60_000);
    });
    await evict(stub);
    // A stub breaks with its object; the next one reaches a fresh instance over the same storage.
    const revived = objectOf(agent.id);
    expect((await revived.generationState()).generating).toBe(true);
    await heartbeatNow(revived);
    const transcript = await rows(token, run.id);
    expect(transcript.map((r) => [r.seq, r.role])).toEqual([
      [0, "system"],
      [1, "user"],
      [2, "assistant"],
      [3, "tool"],
      [4, "tool"],
    ]);
    expect(transcript[4]!.payload).toEqual({ role: "tool", tool_call_id: "c2", content: "ERROR: execution interrupted" });
    const after = (await call("GET", `/api/runs/${run.id}`, { token })).json;
    expect(after.status).toBe("active");
    expect(after.errors.at(-1).code).toBe("generation.interrupted");
    expect(await modelRequests(agent.model)).toHaveLength(0);
    // The history is valid for the next model call, which now sees both results.
    await script(agent.model, [{ content: "recovered" }]);
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "continue" } })).status).toBe(202);
    await settled(token, run.id);
    const sent = (await modelRequests(agent.model))[0]!.body.messages;
    expect(sent.filter((m: { role: string }) => m.role === "tool").map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(["c1", "c2"]);
  });

  it("CANCEL-007: an object evicted during a model call frees the lock on its next alarm and writes no assistant row", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "never committed", delay_ms: 3000 }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await untilGenerating(token, run.id);
    const stub = objectOf(agent.id);
    await evict(stub);
    const revived = objectOf(agent.id);
    expect((await revived.generationState()).generating).toBe(true);
    await heartbeatNow(revived);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);
    expect((await call("GET", `/api/runs/${run.id}`, { token })).json.errors.at(-1).code).toBe("generation.interrupted");
  });
});
