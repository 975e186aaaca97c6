import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../core/db/client";
import { messages, runs } from "../../../core/db/schema";
import { newAgent, objectOf } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";
import { LEASE_MS } from "../state/generation-lock";

/**
 * A schedule run caught mid-generation by a restart: its lock is still held in the
 * object's storage, no loop runs, and the lease has run out by the time the object wakes.
 */
async function interruptedScheduleRun(token: string, guildId: string, metadata: Record<string, unknown>) {
  const agent = await newAgent(token, guildId);
  // A direct run of the agent, for a real snapshot to copy.
  const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
  const { db, close } = openDatabase(env);
  try {
    const [{ snapshot }] = (await db.select({ snapshot: runs.snapshot }).from(runs).where(eq(runs.id, direct.id))) as [{ snapshot: unknown }];
    const [run] = await db.insert(runs).values({ agentId: agent.id, kind: "schedule", status: "active", generation: 1, snapshot, metadata }).returning();
    await db.insert(messages).values([
      { runId: run!.id, seq: 0, role: "system", payload: { role: "system", content: "sys" }, metadata: { source: "system" }, tokenCount: 5 },
      {
        runId: run!.id,
        seq: 1,
        generation: 1,
        role: "user",
        payload: { role: "user", content: "Schedule wake-up: {}" },
        metadata: { source: "schedule" },
        tokenCount: 5,
      },
    ]);
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, async (object: AgentObject) => {
      expect(object.rooms.context.lock.stored.acquire(run!.id, 1, LEASE_MS).ok).toBe(true);
      const realNow = object.now;
      // The object wakes after the lease ran out, with no loop of its own in memory.
      object.now = () => realNow() + 2 * LEASE_MS;
      await object.rooms.runs.heartbeat();
      object.now = realNow;
    });
    expect((await stub.generationState()).generating).toBe(false);
    return (await call("GET", `/api/runs/${run!.id}`, { token })).json;
  } finally {
    await close();
  }
}

describe("recovery of an interrupted generation", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("CANCEL-009 / SCHED-023: an interrupted schedule run the operator has not resumed is marked completed", async () => {
    const run = await interruptedScheduleRun(token, guildId, {});
    expect(run).toMatchObject({ kind: "schedule", status: "completed", completed_at: expect.any(String) });
    expect(run.errors.at(-1)).toMatchObject({ code: "generation.interrupted", generation: 1 });
  });

  it("CANCEL-010: an interrupted run the operator resumed stays active", async () => {
    const run = await interruptedScheduleRun(token, guildId, { resumed_at: new Date().toISOString() });
    expect(run).toMatchObject({ kind: "schedule", status: "active", completed_at: null });
    expect(run.errors.at(-1)).toMatchObject({ code: "generation.interrupted" });
  });
});
