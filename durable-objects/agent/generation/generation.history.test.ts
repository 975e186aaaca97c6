import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

describe("a run's history", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GEN-001 / GEN-010 / RUN-015 / EXACT-001 / EXACT-002: each message starts one generation whose tool loop ends at a reply without tool calls; the model gets the stored rows in order, and earlier rows never change", async () => {
    const agent = await newAgent(token, guildId, { keep_tool_result_generations: 100 });
    await script(agent.model, [
      { tool_calls: [toolCall("note_write", { title: "a", body: "1" })] },
      { tool_calls: [toolCall("note_list", {})] },
      { content: "two tools, then this" },
      { content: "second generation" },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "first" } })).json;
    await settled(token, run.id);
    const first = await rows(token, run.id);
    expect(first.map((r) => [r.role, r.generation])).toEqual([
      ["system", null],
      ["user", 1],
      ["assistant", 1],
      ["tool", 1],
      ["assistant", 1],
      ["tool", 1],
      ["assistant", 1],
    ]);
    expect(first.at(-1)!.payload.tool_calls).toBeUndefined();
    // The last model call of generation 1 got exactly the stored payloads before it.
    const requests = await modelRequests(agent.model);
    expect(requests).toHaveLength(3);
    expect(requests[2]!.body.messages).toEqual(first.slice(0, 6).map((r) => r.payload));

    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "second" } })).status).toBe(202);
    await settled(token, run.id);
    const second = await rows(token, run.id);
    expect(second.slice(0, first.length)).toEqual(first);
    expect(second.slice(first.length).map((r) => [r.seq, r.role, r.generation])).toEqual([
      [7, "user", 2],
      [8, "assistant", 2],
    ]);
    expect(await modelRequests(agent.model)).toHaveLength(4);
  });

  it("RUN-012: a later message appends the operator's text only; the system row and State are not recomposed after the agent changes", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "one" }, { content: "two" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hello" } })).json;
    await settled(token, run.id);
    const system = (await rows(token, run.id))[0]!;
    expect((await call("PATCH", `/api/agents/${agent.id}`, { token, body: { instructions: "Answer in French from now on." } })).status).toBe(200);
    await call("PUT", `/api/agents/${agent.id}/memory`, { token, body: { content: "A new memory line" } });

    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "  exactly this  " } })).status).toBe(202);
    await settled(token, run.id);
    const after = await rows(token, run.id);
    expect(after[0]).toEqual(system);
    expect(after[3]!.payload).toEqual({ role: "user", content: "  exactly this  " });
    const [firstCall, secondCall] = await modelRequests(agent.model);
    expect(secondCall!.body.messages[0]).toEqual(firstCall!.body.messages[0]);
    expect(JSON.stringify(secondCall!.body.messages)).not.toContain("French");
    expect(JSON.stringify(secondCall!.body.messages)).not.toContain("A new memory line");
  });

  it("RUN-018: rows carry their run only; agent, guild and organisation ids are not copied into message metadata", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ tool_calls: [toolCall("note_write", { title: "n", body: "b" })] }, { content: "done" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "write" } })).json;
    await settled(token, run.id);
    const organisationId = (await call("GET", "/api/organisation", { token })).json.id as string;
    for (const row of await rows(token, run.id)) {
      const metadata = JSON.stringify(row.metadata);
      for (const id of [agent.id, guildId, organisationId]) expect(metadata).not.toContain(id);
      expect(Object.keys(row.metadata)).not.toEqual(expect.arrayContaining(["agent_id"]));
    }
  });

  it("GEN-025 / EXACT-007: a tool result is stored only after the output pipeline: redacted, with the budget trailer", async () => {
    const agent = await newAgent(token, guildId);
    // The selector's key the test Worker runs with (a platform secret; the provider key is the
    // suite's canary and may appear nowhere): a tool result that echoes it must never store it.
    const key = "sk-test-selector-key-0123456789";
    await script(agent.model, [
      { tool_calls: [toolCall("note_write", { title: "k", body: `the key is ${key}` })] },
      { tool_calls: [toolCall("note_read", { title: "k" })] },
      { content: "ok" },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await settled(token, run.id);
    const read = (await rows(token, run.id)).filter((r) => r.role === "tool").at(-1)!;
    expect(read.payload.content).toContain("the key is [REDACTED:TYPESAFE_API_KEY]");
    expect(read.payload.content).not.toContain(key);
    expect(read.payload.content.split("\n").at(-1)).toMatch(/^remaining_tool_calls: \d+$/);
    expect(JSON.stringify((await modelRequests(agent.model))[2]!.body.messages.at(-1))).not.toContain(key);
  });
});
