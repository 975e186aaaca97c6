import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

const toolNames = (run: { snapshot: { tools: string[] } }) => run.snapshot.tools;

describe("direct runs", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("RUN-003: a run created without a message holds only the system row and does not generate", async () => {
    const agent = await newAgent(token, guildId);
    const res = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: "direct", status: "active", generation: 0, label: "New chat" });
    const transcript = await rows(token, res.json.id);
    expect(transcript.map((r) => [r.seq, r.role, r.generation])).toEqual([[0, "system", null]]);
    expect(await modelRequests(agent.model)).toHaveLength(0);
  });

  it("RUN-004 / RUN-010 / RUN-011: with a message, row 0 is the composed prompt, row 1 the user row, and the reply shares generation 1", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "Hello operator" }]);
    const res = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "Hi there" } });
    expect(res.status).toBe(201);
    const run = await settled(token, res.json.id);
    expect(run.status).toBe("active");
    const transcript = await rows(token, res.json.id);
    expect(transcript.map((r) => [r.seq, r.role, r.generation])).toEqual([
      [0, "system", null],
      [1, "user", 1],
      [2, "assistant", 1],
    ]);
    const system = transcript[0]!.payload.content as string;
    const order = ["<guidelines>", "<task>", "<state>", "<memory>"].map((tag) => system.indexOf(tag));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(transcript[1]!.payload).toEqual({ role: "user", content: "Hi there" });
    expect(transcript[2]!.payload).toEqual({ role: "assistant", content: "Hello operator" });
  });

  it("GEN-009 / GEN-015 / RUN-017: tool calls run one after another, each result ends with the trailer and carries the call id", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { tool_calls: [toolCall("note_write", { title: "plan", body: "step one" }), toolCall("note_read", { title: "plan" })] },
      { content: "Noted." },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "Make a plan" } })).json;
    await settled(token, run.id);
    const transcript = await rows(token, run.id);
    expect(transcript.map((r) => r.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    const calls = transcript[2]!.payload.tool_calls;
    expect(transcript[3]!.payload.tool_call_id).toBe(calls[0].id);
    expect(transcript[3]!.metadata).toMatchObject({ tool_name: "note_write", tool_call_id: calls[0].id });
    expect(transcript[3]!.payload.content.split("\n").at(-1)).toBe("remaining_tool_calls: 49");
    expect(transcript[4]!.payload.content).toContain("step one");
    expect(transcript[4]!.payload.content.split("\n").at(-1)).toBe("remaining_tool_calls: 48");
    expect(transcript.every((r) => r.seq === transcript.indexOf(r))).toBe(true);
    // The second model call saw both results.
    const requests = await modelRequests(agent.model);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.body.messages.filter((m: { role: string }) => m.role === "tool")).toHaveLength(2);
  });
});

describe("opening a run: the answer is the run as written, the agent's organisation still checked", () => {
  it("RUN-003 / HARDEN: the created run answers exactly as reading it back does", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId);
    const created = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { title: "Plans" } });
    expect(created.status).toBe(201);
    const read = await call("GET", `/api/runs/${created.json.id}`, { token });
    const { generating: _generating, ...stored } = read.json;
    expect(created.json).toEqual(stored);
    expect(created.json).toMatchObject({ title: "Plans", cost_usd: "0", generation: 0, archived_at: null, snapshot: expect.any(Object) });
  });
});

describe("what a run fixes at creation", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("PROJ-009 / EXACT-009: the snapshot stores projection policy version 1 and the flags browser, coding, cli, scripting and memory", async () => {
    const agent = await newAgent(token, guildId, { memory: true, cli: false, scripting: false });
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(run.snapshot.model.projection_policy_version).toBe(1);
    expect(run.snapshot.flags).toMatchObject({ browser: false, coding: false, cli: false, scripting: false, memory: true });
    await call("PATCH", `/api/agents/${agent.id}`, { token, body: { memory: false, cli: true } });
    const later = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(later.snapshot.flags).toMatchObject({ cli: true, memory: false });
    expect((await call("GET", `/api/runs/${run.id}`, { token })).json.snapshot.flags).toMatchObject({ cli: false, memory: true });
  });

  it("EXACT-018: group_post is offered while its binding is on and not once it is off", async () => {
    const agent = await newAgent(token, guildId);
    const on = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(toolNames(on)).toContain("group_post");
    expect((await call("PATCH", `/api/agents/${agent.id}`, { token, body: { group_post: false } })).status).toBe(200);
    const off = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(toolNames(off)).not.toContain("group_post");
  });

  it("EXACT-006 / ERR-006: a provider failure is not retried: one request, the error recorded, the run usable", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ status: 503 }, { content: "after the failure" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "try" } })).json;
    const failed = await settled(token, run.id);
    expect(await modelRequests(agent.model)).toHaveLength(1);
    expect(failed.errors.at(-1)).toMatchObject({ generation: 1 });
    expect(failed.status).toBe("active");
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } })).status).toBe(202);
    await settled(token, run.id);
    expect(await modelRequests(agent.model)).toHaveLength(2);
  });
});
