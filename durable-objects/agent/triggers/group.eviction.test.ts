import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../bindings/env";
import { openDatabase } from "../../../core/db/client";
import { groupCursors } from "../../../core/db/schema";
import { newAgent, objectOf, rows, script, settled, untilGenerating } from "../../../test/workerd/agents";
import { groupRuns, postChat, seedChatRows, untilDelivered } from "../../../test/workerd/group-chat";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { GuildObject } from "../../guild/guild-object";
import type { AgentObject } from "../agent-object";

/** Resets an object as an eviction or crash would; its storage stays. */
async function evict(stub: DurableObjectStub<AgentObject> | DurableObjectStub<GuildObject>) {
  await runInDurableObject(stub as DurableObjectStub<AgentObject>, (_object: unknown, state) => state.abort("evicted")).catch(() => {});
}

/** Runs the revived agent object's alarm two minutes ahead: its lease has run out, its retries are due. */
async function alarmLater(agentId: string) {
  const stub = objectOf(agentId);
  await runInDurableObject(stub, (object: AgentObject) => {
    object.now = () => Date.now() + 120_000;
  });
  await runDurableObjectAlarm(stub);
}

/** Waits until the guild object has queued a delivery on the agent's object. */
async function untilQueued(agentId: string) {
  for (let i = 0; i < 100 && !(await objectOf(agentId).deadlines()).some((d) => d.name === "group.delivery"); i++) await new Promise((r) => setTimeout(r, 20));
  expect((await objectOf(agentId).deadlines()).map((d) => d.name)).toContain("group.delivery");
}

const guildStub = (guildId: string) => {
  const ns = (env as unknown as Env).GUILD;
  return ns.get(ns.idFromName(guildId));
};

async function cursorOf(agentId: string) {
  const { db, close } = openDatabase(env as unknown as Env);
  try {
    return (await db.select().from(groupCursors).where(eq(groupCursors.agentId, agentId)))[0]?.deliveredThroughSeq;
  } finally {
    await close();
  }
}

describe("group deliveries across restarts", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GROUP-009 / GROUP-011: an agent object restarted between queueing and delivery loses nothing and duplicates nothing", async () => {
    const agent = await newAgent(token, guildId, { name: "Restarted" });
    await script(agent.model, [{ content: "slow direct answer", delay_ms: 3_000 }, { content: "read the chat" }]);
    const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "work" } })).json;
    await untilGenerating(token, direct.id);
    const posted = await postChat(token, guildId, "queued while busy");
    // The delivery is queued on the busy agent and waits.
    await untilQueued(agent.id);
    expect(await groupRuns(token, agent.id)).toEqual([]);
    await evict(objectOf(agent.id));
    expect((await objectOf(agent.id).deadlines()).map((d) => d.name)).toContain("group.delivery");
    await alarmLater(agent.id);
    const delivered = await untilDelivered(token, agent.id, 1);
    expect(delivered.map((r) => r.metadata.group_chat_through_seq)).toEqual([posted.seq]);
    // More alarms deliver nothing twice.
    await runDurableObjectAlarm(objectOf(agent.id));
    expect(await groupRuns(token, agent.id)).toHaveLength(1);
    expect(await cursorOf(agent.id)).toBe(posted.seq);
    expect((await settled(token, direct.id)).errors.map((e: { code: string }) => e.code)).toContain("generation.interrupted");
  });

  it("GROUP-011: a guild object restarted before its dispatch was confirmed queues the deliveries again from its alarm", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { name: "Late" });
    await script(agent.model, [{ content: "caught up" }]);
    // The state a crash right after the commit leaves: the row stored, the marker set, no agent told.
    await seedChatRows(guildId, 1);
    const guild = guildStub(guildId);
    await runInDurableObject(guild as unknown as DurableObjectStub<AgentObject>, async (_object: unknown, state) => {
      await state.storage.put("dispatch.pending", { guildId, seq: 1 });
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    await evict(guild);
    // The seeded row predates the agent's cursor; move it back so the row is news to the agent.
    const { db, close } = openDatabase(env as unknown as Env);
    await db.update(groupCursors).set({ deliveredThroughSeq: 0 }).where(eq(groupCursors.agentId, agent.id));
    await close();
    expect(await runDurableObjectAlarm(guildStub(guildId))).toBe(true);
    const [run] = await untilDelivered(token, agent.id, 1);
    expect(run!.metadata.group_chat_through_seq).toBe(1);
    // Confirmed: the marker is gone, so no further alarm queues it again.
    expect(await runDurableObjectAlarm(guildStub(guildId))).toBe(false);
  });

  it("GROUP-014 / CANCEL-008: an interrupted group run is completed at restart, the cursor advances through its snapshot, and dispatch resumes", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { name: "Interrupted" });
    await script(agent.model, [{ content: "slow group answer", delay_ms: 3_000 }, { content: "the second delivery" }]);
    const first = await postChat(token, guildId, "first");
    // The lock is taken before the run is written: wait for the run itself.
    for (let i = 0; i < 200 && (await groupRuns(token, agent.id)).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [interrupted] = await groupRuns(token, agent.id);
    await untilGenerating(token, interrupted!.id);
    const second = await postChat(token, guildId, "second, while the first is read");
    await untilQueued(agent.id);
    await evict(objectOf(agent.id));
    await alarmLater(agent.id);
    const runs = await untilDelivered(token, agent.id, 2);
    expect(runs[0]!.id).toBe(interrupted!.id);
    expect(runs[0]).toMatchObject({ status: "completed", metadata: { group_chat_through_seq: first.seq } });
    expect(runs[0]!.errors.map((e: { code: string }) => e.code)).toEqual(["generation.interrupted"]);
    expect(runs[1]!.metadata).toMatchObject({ group_chat_after_seq: first.seq, group_chat_through_seq: second.seq });
    expect((await rows(token, runs[1]!.id)).map((r) => r.role)).toEqual(["system", "user", "assistant"]);
    expect(await cursorOf(agent.id)).toBe(second.seq);
  });
});
