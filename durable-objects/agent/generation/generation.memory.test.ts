import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MEMORY_REMINDER } from "../../../core/tools/memory";
import { modelRequests, newAgent, objectOf, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { postChat, untilDelivered } from "../../../test/workerd/group-chat";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";

/** Fires the agent's routine at its planned time and returns the schedule run once it ended. */
async function fireRoutine(token: string, agentId: string) {
  const created = (
    await call("POST", `/api/agents/${agentId}/schedules`, { token, body: { description: "Yearly", instruction: "Reflect.", cron: "0 0 1 1 *" } })
  ).json;
  const stub = objectOf(agentId);
  await runInDurableObject(stub, (object: AgentObject) => {
    object.now = () => Date.parse(created.next_run_at) + 100;
  });
  await runDurableObjectAlarm(stub);
  const [run] = (await call("GET", `/api/schedules/${created.id}/runs`, { token })).json.data;
  return settled(token, run.id);
}

describe("Memory", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("EXACT-012 / RUN-013: memory_write is offered only with Memory on, and what it writes opens the next runs, not the current one", async () => {
    const off = await newAgent(token, guildId);
    expect((await call("POST", `/api/agents/${off.id}/runs`, { token, body: {} })).json.snapshot.tools).not.toContain("memory_write");
    const agent = await newAgent(token, guildId, { memory: true });
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(run.snapshot.tools).toContain("memory_write");
    await script(agent.model, [{ tool_calls: [toolCall("memory_write", { content: "The operator likes haiku." })] }, { content: "noted" }]);
    await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "remember that I like haiku" } });
    await settled(token, run.id);
    expect((await rows(token, run.id))[0]!.payload.content).not.toContain("likes haiku");
    expect((await call("GET", `/api/agents/${agent.id}/memory`, { token })).json).toMatchObject({ enabled: true, content: "The operator likes haiku." });
    const next = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const system = (await rows(token, next.id))[0]!.payload.content as string;
    expect(system.slice(system.indexOf("<memory>"))).toContain("The operator likes haiku.");
    // The operator can edit it too; 422 beyond the size limit.
    expect((await call("PUT", `/api/agents/${agent.id}/memory`, { token, body: { content: "Edited by hand." } })).json.content).toBe("Edited by hand.");
    expect((await call("PUT", `/api/agents/${agent.id}/memory`, { token, body: { content: "x".repeat(20_001) } })).status).toBe(422);
  });

  it("SCHED-020 / GEN-027: a schedule run that returns without memory_write gets one reminder row and one extra step", async () => {
    const agent = await newAgent(token, guildId, { memory: true });
    await script(agent.model, [{ content: "all quiet" }, { tool_calls: [toolCall("memory_write", { content: "Quiet new year." })] }, { content: "saved" }]);
    const run = await fireRoutine(token, agent.id);
    const transcript = await rows(token, run.id);
    expect(transcript.map((r) => r.role)).toEqual(["system", "user", "assistant", "user", "assistant", "tool", "assistant"]);
    expect(transcript[3]!).toMatchObject({ payload: { role: "user", content: MEMORY_REMINDER }, metadata: { source: "memory_reminder" } });
    expect(run.metadata.memory_skipped).toBeUndefined();
    expect(run.status).toBe("completed");
    expect((await call("GET", `/api/agents/${agent.id}/memory`, { token })).json.content).toBe("Quiet new year.");
  });

  it("SCHED-020: a wake that still does not write completes with memory_skipped: true after exactly one reminder", async () => {
    const agent = await newAgent(token, guildId, { memory: true, max_steps: 1 });
    await script(agent.model, [{ content: "nothing to say" }, { content: "still nothing" }, { content: "never asked" }]);
    const run = await fireRoutine(token, agent.id);
    expect((await rows(token, run.id)).filter((r) => r.metadata.source === "memory_reminder")).toHaveLength(1);
    // max_steps 1, yet the reminder's extra step ran: two model calls in all.
    expect(await modelRequests(agent.model)).toHaveLength(2);
    expect(run.metadata.memory_skipped).toBe(true);
    expect(run.errors).toEqual([]);
  });

  it("GEN-027: with Memory off there is no reminder", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "done" }]);
    const run = await fireRoutine(token, agent.id);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user", "assistant"]);
    expect(run.metadata.memory_skipped).toBeUndefined();
  });

  it("GROUP-005 / GROUP-006: a group delivery with Memory on that returns without memory_write gets the reminder row and exactly one extra step", async () => {
    const { agent, run } = await deliverGroup({ memory: true }, [
      { content: "read it" },
      { tool_calls: [toolCall("memory_write", { content: "The group ships on Friday." })] },
      { content: "saved" },
    ]);
    const transcript = await rows(token, run.id);
    expect(transcript.map((r) => r.role)).toEqual(["system", "user", "assistant", "user", "assistant", "tool", "assistant"]);
    expect(transcript[1]!.metadata.source).toBe("group");
    expect(transcript[3]!).toMatchObject({ payload: { content: MEMORY_REMINDER }, metadata: { source: "memory_reminder" } });
    expect(run).toMatchObject({ status: "completed" });
    expect(run.metadata.memory_skipped).toBeUndefined();
    expect((await call("GET", `/api/agents/${agent.id}/memory`, { token })).json.content).toBe("The group ships on Friday.");
  });

  it("GROUP-007: a group delivery that still does not write after the reminder completes with memory_skipped: true", async () => {
    const { agent, run } = await deliverGroup({ memory: true, max_steps: 1 }, [
      { content: "nothing" },
      { content: "still nothing" },
      { content: "never asked" },
    ]);
    expect((await rows(token, run.id)).filter((r) => r.metadata.source === "memory_reminder")).toHaveLength(1);
    expect(await modelRequests(agent.model)).toHaveLength(2);
    expect(run).toMatchObject({ status: "completed", metadata: { memory_skipped: true } });
  });

  it("GROUP-008: a group delivery with Memory off has no reminder and no memory_write requirement", async () => {
    const { run } = await deliverGroup({}, [{ content: "read" }]);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user", "assistant"]);
    expect(run.snapshot.tools).not.toContain("memory_write");
    expect(run.metadata.memory_skipped).toBeUndefined();
  });

  /** An operator post in a guild of one agent, and that agent's settled group run. */
  async function deliverGroup(settings: Record<string, unknown>, replies: unknown[]) {
    const { token: own, guildId: guild } = await seedGuild();
    token = own;
    const agent = await newAgent(token, guild, settings);
    await script(agent.model, replies);
    await postChat(token, guild, "news for everyone");
    const [run] = await untilDelivered(token, agent.id, 1);
    return { agent, run: run! };
  }
});
