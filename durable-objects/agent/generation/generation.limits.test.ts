import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, rows, script, scriptHeld, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

const note = (i: number) => toolCall("note_write", { title: `n${i}`, body: "x" });
const lastLines = (content: string, n: number) => content.split("\n").slice(-n);

describe("generation limits", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GEN-016: at 8 or fewer remaining the wrap-up line sits above the trailer, not before", async () => {
    const agent = await newAgent(token, guildId, { max_tool_calls: 10 });
    await script(agent.model, [{ tool_calls: [note(1), note(2), note(3)] }, { content: "done" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await settled(token, run.id);
    const results = (await rows(token, run.id)).filter((r) => r.role === "tool").map((r) => r.payload.content as string);
    expect(lastLines(results[0]!, 2)).toEqual([expect.not.stringContaining("write durable findings"), "remaining_tool_calls: 9"]);
    expect(results[1]!.split("\n").at(-1)).toBe("remaining_tool_calls: 8");
    expect(lastLines(results[1]!, 2)).toEqual(["write durable findings and finish with text; a batch costs one call each", "remaining_tool_calls: 8"]);
    expect(lastLines(results[2]!, 2)[1]).toBe("remaining_tool_calls: 7");
  });

  it("GEN-017 / GEN-018 / OP-GEN-4: the batch that reaches max_tool_calls finishes, the run completes, and messages and resume are refused", async () => {
    const agent = await newAgent(token, guildId, { max_tool_calls: 2 });
    await script(agent.model, [{ tool_calls: [note(1), note(2), note(3)] }, { content: "never asked" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const after = await settled(token, run.id);
    expect(after.status, JSON.stringify({ after, rows: await rows(token, run.id), requests: (await modelRequests(agent.model)).length })).toBe("completed");
    expect(after.errors.map((e: { code: string }) => e.code)).toEqual(["generation.max_tool_calls"]);
    const results = (await rows(token, run.id)).filter((r) => r.role === "tool");
    expect(results.map((r) => r.payload.content.split("\n").at(-1))).toEqual(["remaining_tool_calls: 1", "remaining_tool_calls: 0", "remaining_tool_calls: 0"]);
    expect(await modelRequests(agent.model)).toHaveLength(1);
    const message = await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "more" } });
    expect(message.status).toBe(409);
    expect(message.json.error.code).toBe("run.not_accepting_messages");
    const resume = await call("POST", `/api/runs/${run.id}/resume`, { token });
    expect(resume.status).toBe(409);
    expect(resume.json.error.details.reason).toBe("generation.max_tool_calls");
  });

  it("GEN-011 / ERR-009: the last allowed step's tools still run, then generation.max_steps is recorded and a direct run stays active", async () => {
    const agent = await newAgent(token, guildId, { max_steps: 2 });
    await script(agent.model, [{ tool_calls: [note(1)] }, { tool_calls: [note(2)] }, { content: "never asked" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const after = await settled(token, run.id);
    expect(
      after.errors.map((e: { code: string }) => e.code),
      JSON.stringify({ after, rows: await rows(token, run.id) }),
    ).toEqual(["generation.max_steps"]);
    expect(after.status).toBe("active");
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    expect(await modelRequests(agent.model)).toHaveLength(2);
  });

  it("GEN-020 / ERR-010: above max_input_tokens the model is not called, the run completes and resume is refused", async () => {
    const agent = await newAgent(token, guildId, { max_input_tokens: 1000 });
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "word ".repeat(2000) } })).json;
    const after = await settled(token, run.id);
    expect(after.status, JSON.stringify({ after, rows: await rows(token, run.id), requests: (await modelRequests(agent.model)).length })).toBe("completed");
    expect(after.errors[0]).toMatchObject({ code: "generation.max_input_tokens" });
    expect(after.errors[0].message).toContain("Start a new run");
    expect(await modelRequests(agent.model)).toHaveLength(0);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);
    expect((await call("POST", `/api/runs/${run.id}/resume`, { token })).json.error.details.reason).toBe("generation.max_input_tokens");
  });

  it("ERR-001 / ERR-002 / GEN-024: a provider failure creates no row, is recorded on the run, is not retried, and frees the agent", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ status: 500, content: "upstream exploded" }, { content: "second try works" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const after = await settled(token, run.id);
    expect(after.status).toBe("active");
    expect(after.errors[0]).toMatchObject({ code: "provider.error", http_status: 500, generation: 1, operation: "model.call" });
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);
    expect(await modelRequests(agent.model)).toHaveLength(1);
    const again = await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } });
    expect(again.status).toBe(202);
    await settled(token, run.id);
    expect((await rows(token, run.id)).at(-1)!.payload.content).toBe("second try works");
  });

  it("GEN-002 / GEN-003 / GEN-006: while an agent generates, messages to any of its runs get 409 agent.busy; another agent is not blocked", async () => {
    const agent = await newAgent(token, guildId);
    const other = await newAgent(token, guildId);
    // The first agent's reply waits until the other agent has answered: it generates all along.
    const release = await scriptHeld(agent.model, [{ content: "slow" }]);
    await script(other.model, [{ content: "quick" }]);
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const second = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    for (const runId of [first.id, second.id]) {
      const busy = await call("POST", `/api/runs/${runId}/messages`, { token, body: { content: "hello?" } });
      expect(busy.status).toBe(409);
      expect(busy.json.error).toMatchObject({ code: "agent.busy", details: { run_id: first.id } });
    }
    const newRun = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "a new chat" } });
    expect(newRun.status).toBe(409);
    const otherRun = (await call("POST", `/api/agents/${other.id}/runs`, { token, body: { message: "go" } })).json;
    expect((await settled(token, otherRun.id)).generating).toBe(false);
    expect((await call("GET", `/api/runs/${first.id}`, { token })).json.generating).toBe(true);
    await release();
    await settled(token, first.id);
    // The refused message left nothing behind.
    expect((await rows(token, second.id)).map((r) => r.role)).toEqual(["system"]);
  });
});
