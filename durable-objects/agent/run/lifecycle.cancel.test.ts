import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../core/db/client";
import { messages, runs } from "../../../core/db/schema";
import { modelRequests, newAgent, objectOf, rows, script, settled, toolCall, untilGenerating } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";

describe("cancellation, recovery and resume", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

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

  it("CANCEL-012 / CANCEL-013 / CANCEL-014 / CANCEL-015 / SCHED-021: a completed one-shot run refuses messages until resumed, then accepts them and stays active", async () => {
    const agent = await newAgent(token, guildId);
    const { db, close } = openDatabase(env);
    const [oneShot] = await db
      .insert(runs)
      .values({ agentId: agent.id, kind: "schedule", status: "completed", snapshot: (await db.select().from(runs).limit(1))[0]!.snapshot })
      .returning();
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

  it("CANCEL-006: the heartbeat renews the lease of a generation still running in memory and leaves it alone", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "slow but fine", delay_ms: 1500 }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await untilGenerating(token, run.id);
    const stub = objectOf(agent.id);
    const before = await stub.generationState();
    await runInDurableObject(stub, async (object: AgentObject) => {
      const realNow = object.now;
      object.now = () => realNow() + 30_000;
      await object.alarm();
      object.now = realNow;
    });
    const renewed = await stub.generationState();
    expect(renewed.generating).toBe(true);
    expect(Date.parse(renewed.lease_until!)).toBeGreaterThan(Date.parse(before.lease_until!));
    const after = await settled(token, run.id);
    expect(after.errors).toEqual([]);
    expect((await rows(token, run.id)).at(-1)!.payload.content).toBe("slow but fine");
  });

  it("RUN-014 / record_list since: records are kept in Postgres and listed after a cursor", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ tool_calls: [toolCall("record_create", { kind: "price", content: "BTC 1" })] }, { content: "stored" }]);
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "store" } })).json;
    await settled(token, first.id);
    const cursor = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await script(agent.model, [
      { tool_calls: [toolCall("record_create", { kind: "price", content: "BTC 2" })] },
      { tool_calls: [toolCall("record_list", { since: cursor })] },
      { content: "listed" },
    ]);
    await call("POST", `/api/runs/${first.id}/messages`, { token, body: { content: "store and list" } });
    await settled(token, first.id);
    const listed = (await rows(token, first.id)).filter((r) => r.metadata.tool_name === "record_list").at(-1)!.payload.content as string;
    expect(listed).toContain("BTC 2");
    expect(listed).not.toContain("BTC 1");
  });
});
