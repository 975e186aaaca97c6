import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { messages, runs } from "../../core/db/schema";
import type { AgentObject } from "../../durable-objects/agent/agent-object";
import { HEARTBEAT } from "../../durable-objects/agent/run-service";
import type { Env } from "../env";
import { call, seedOrganisation } from "../test/seed";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../test/agents";

const objectOf = (agentId: string) => {
  const ns = (env as unknown as Env).AGENT;
  return ns.get(ns.idFromName(agentId));
};

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

async function untilGenerating(token: string, runId: string) {
  for (let i = 0; i < 200; i++) {
    if ((await call("GET", `/api/runs/${runId}`, { token })).json.generating) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("never started generating");
}

describe("cancellation, recovery and resume", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => {
    ({ token } = await seedOrganisation());
    guildId = (await call("POST", "/api/guilds", { token, body: { name: "G" } })).json.id;
  });

  it("CANCEL-001 / CANCEL-002 / CANCEL-003 / OP-CANCEL-3: cancel stops the model call, records generation.cancelled, keeps no partial row and leaves the direct run active", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "a long answer that streams slowly ".repeat(20), stream_chunk_ms: 100 }, { content: "after cancel" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "talk" } })).json;
    await untilGenerating(token, run.id);
    await new Promise((r) => setTimeout(r, 300));
    const cancelled = await call("POST", `/api/runs/${run.id}/cancel`, { token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: "active", generating: false });
    expect(cancelled.json.errors.at(-1)).toMatchObject({ code: "generation.cancelled", generation: 1 });
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await modelRequests(agent.model))[0]!.aborted).toBe(true);
    expect((await call("POST", `/api/runs/${run.id}/cancel`, { token })).json.error.code).toBe("run.not_generating");
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } })).status).toBe(202);
    await settled(token, run.id);
    expect((await rows(token, run.id)).at(-1)!.payload.content).toBe("after cancel");
  });

  it("CANCEL-005 / CANCEL-006 / CANCEL-007: an object lost mid-tool leaves interruption results for unresolved calls, a free lock, and no replayed model call", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    // The state an eviction leaves: the assistant row with two calls committed, one result written.
    const { db, close } = openDatabase(env);
    await db.insert(messages).values([
      { runId: run.id, seq: 1, generation: 1, role: "user", payload: { role: "user", content: "go" }, metadata: {}, tokenCount: 5 },
      { runId: run.id, seq: 2, generation: 1, role: "assistant", payload: { role: "assistant", content: null, tool_calls: [
        { id: "c1", type: "function", function: { name: "note_list", arguments: "{}" } },
        { id: "c2", type: "function", function: { name: "note_read", arguments: "{\"title\":\"x\"}" } },
      ] }, metadata: {}, tokenCount: 20 },
      { runId: run.id, seq: 3, generation: 1, role: "tool", payload: { role: "tool", tool_call_id: "c1", content: "[]\nremaining_tool_calls: 49" }, metadata: { tool_name: "note_list" }, tokenCount: 9 },
    ]);
    await db.update(runs).set({ generation: 1 });
    await close();
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, async (object: AgentObject) => {
      expect(object.lock.acquire(run.id, 1, 60_000).ok).toBe(true);
      await object.multiplexer.set(HEARTBEAT, object.now() + 60_000);
    });
    await evict(stub);
    // A stub breaks with its object; the next one reaches a fresh instance over the same storage.
    const revived = objectOf(agent.id);
    expect((await revived.generationState()).generating).toBe(true);
    await heartbeatNow(revived);
    const transcript = await rows(token, run.id);
    expect(transcript.map((r) => [r.seq, r.role])).toEqual([[0, "system"], [1, "user"], [2, "assistant"], [3, "tool"], [4, "tool"]]);
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

  it("CANCEL-012 / CANCEL-013 / CANCEL-014 / CANCEL-015: a completed one-shot run refuses messages until resumed, then accepts them and stays active", async () => {
    const agent = await newAgent(token, guildId);
    const { db, close } = openDatabase(env);
    const [oneShot] = await db.insert(runs).values({ agentId: agent.id, kind: "schedule", status: "completed", snapshot: (await db.select().from(runs).limit(1))[0]!.snapshot }).returning();
    await db.insert(messages).values({ runId: oneShot!.id, seq: 0, role: "system", payload: { role: "system", content: "sys" }, metadata: {}, tokenCount: 5 });
    await close();
    expect((await call("POST", `/api/runs/${oneShot!.id}/messages`, { token, body: { content: "hi" } })).json.error.code).toBe("run.not_accepting_messages");
    const resumed = await call("POST", `/api/runs/${oneShot!.id}/resume`, { token });
    expect(resumed.status).toBe(200);
    expect(resumed.json.status).toBe("active");
    expect(resumed.json.metadata.resumed_at).toEqual(expect.any(String));
    expect(resumed.json.label).toBe("Schedule wake-up");
    await script(agent.model, [{ content: "back" }]);
    expect((await call("POST", `/api/runs/${oneShot!.id}/messages`, { token, body: { content: "hi" } })).status).toBe(202);
    expect((await settled(token, oneShot!.id)).status).toBe("active");
    expect((await call("POST", `/api/runs/${oneShot!.id}/resume`, { token })).json.error.details.reason).toBe("not_completed");
  });

  it("GEN-002: deleting an agent while it generates answers 409 agent.busy and deletes nothing", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "slow", delay_ms: 1000 }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await untilGenerating(token, run.id);
    const res = await call("DELETE", `/api/agents/${agent.id}`, { token });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: "agent.busy", details: { run_id: run.id } });
    await settled(token, run.id);
    expect((await call("DELETE", `/api/agents/${agent.id}`, { token })).status).toBe(204);
  });

  it("tool calls of an unknown tool get an error result, and the run goes on", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ tool_calls: [toolCall("rm_rf", {})] }, { content: "ok" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await settled(token, run.id);
    const tool = (await rows(token, run.id)).find((r) => r.role === "tool")!;
    expect(tool.payload.content).toMatch(/^ERROR: unknown tool rm_rf/);
  });
});
