import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { readOpeningState } from "../../../core/db/agent-state";
import { MessageAccumulator } from "../../../core/model-gateway/message-stream";
import type { TaskBudget } from "../../../core/tasks/budget";
import { modelRequests, newAgent, objectOf, rows, script, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../../test/workerd/seed";
import type { AgentObject } from "../../agent/agent-object";
import { generationInputs } from "../../agent/generation/inputs";
import { writeOpening } from "../../agent/run/opening";
import { GatewayTurn } from "./gateway-turn";
import type { ModelApi } from "./upstream";

/** A harness's request as Claude Code sends it: system blocks, tools, the conversation so far. */
function harnessCall(messages: unknown[], stream = true) {
  return new Request("https://task/model-gateway/messages", {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "run-credential" },
    body: JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      stream,
      system: [{ type: "text", text: "You are Claude Code." }],
      tools: [{ name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } } } }],
      messages,
    }),
  });
}

/**
 * Opens a run on the agent's own object and serves the harness calls `calls` makes through
 * one gateway turn, as the task object does while Claude Code runs in the box.
 */
async function gatewayTurn(agentId: string, api: ModelApi, calls: (turn: GatewayTurn) => Promise<void>, budget?: TaskBudget) {
  return runInDurableObject(objectOf(agentId), async (object: AgentObject) => {
    const { context } = object.rooms;
    const runId = crypto.randomUUID();
    const db = context.database.db();
    const now = new Date(context.now());
    const state = await readOpeningState(db, agentId, now);
    const opened = await writeOpening(db, state!, runId, now, {
      kind: "direct",
      run: { title: null, metadata: {} },
      wake: { role: "user", content: "say hello" },
    });
    const inputs = await generationInputs(context, opened!.session, 1, new AbortController().signal);
    if (!inputs.ok) throw new Error(inputs.error.message);
    // A task run's budget figures, as its driver sets them on the turn's inputs.
    if (budget) inputs.generation.budget = budget;
    const kept: string[] = [];
    const turn = new GatewayTurn({
      context,
      inputs: inputs.generation,
      model: opened!.session.snapshot.model.model,
      api,
      keepRequest: async (key, body) => {
        kept.push(key);
        await context.env.ATTACHMENTS.put(key, body);
      },
    });
    await calls(turn);
    return { runId, errors: turn.errors, kept };
  });
}

/** What the harness reads of an answer: the whole reply, assembled from the stream as Claude Code does. */
async function read(response: Response) {
  const accumulator = new MessageAccumulator();
  accumulator.push(await response.text());
  return accumulator.finish();
}

describe("the model gateway's turn", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  for (const api of ["openai", "anthropic"] as const) {
    it(`TASK-016: through a provider spoken to as ${api}, the reply streams back in Anthropic's format and the transcript is the traffic: the tool call, its result, the answer, each call priced`, async () => {
      const agent = await newAgent(token, guildId, { coding: true });
      await script(agent.model, [
        { tool_calls: [toolCall("Bash", { command: "echo hi" })], usage: { prompt_tokens: 1_000, completion_tokens: 20 } },
        { content: "It printed hi.", usage: { prompt_tokens: 1_100, completion_tokens: 5 } },
      ]);
      const { runId, errors, kept } = await gatewayTurn(agent.id, api, async (turn) => {
        const first = await read(await turn.relay(harnessCall([{ role: "user", content: "say hello" }])));
        expect(first.stop_reason).toBe("tool_use");
        const use = first.content.find((b) => b.type === "tool_use") as { id: string; name: string; input: unknown };
        expect(use).toMatchObject({ name: "Bash", input: { command: "echo hi" } });
        const second = await read(
          await turn.relay(
            harnessCall([
              { role: "user", content: "say hello" },
              { role: "assistant", content: [{ type: "tool_use", id: use.id, name: use.name, input: use.input }] },
              { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "hi\n" }] },
            ]),
          ),
        );
        expect(second.content).toEqual([expect.objectContaining({ type: "text", text: "It printed hi." })]);
        // The row of the last reply is written once the harness has read it; the next call (or the turn's end) waits for it.
        await turn.relay(harnessCall([{ role: "user", content: "done?" }], false)).then((r) => r.text());
      });
      expect(errors).toEqual([]);
      expect(kept).toHaveLength(3);
      const transcript = await rows(token, runId);
      const shown = transcript
        .filter((r) => r.role !== "system")
        .map((r) => [r.role, r.payload.content ?? null, r.payload.tool_calls?.[0]?.function.name ?? null]);
      expect(shown.slice(0, 4)).toEqual([
        ["user", "say hello", null],
        ["assistant", null, "Bash"],
        ["tool", "hi\n", null],
        ["assistant", "It printed hi.", null],
      ]);
      const priced = transcript.filter((r) => r.role === "assistant").slice(0, 2);
      expect(priced.map((r) => r.metadata.usage.prompt_tokens)).toEqual([1_000, 1_100]);
      expect(priced.every((r) => typeof r.metadata.cost_usd === "number" && r.metadata.request.sha256.length === 64)).toBe(true);
      // The provider was called with the agent's model, whatever model the harness named.
      const sent = await modelRequests(agent.model);
      expect(sent.length).toBe(3);
      // Prompt replay of a harness call: the exact request the gateway sent, its hash the row's.
      const replay = (await call("GET", `/api/runs/${runId}/messages/${priced[1]!.seq}/prompt`, { token })).json;
      expect(replay).toMatchObject({ model: agent.model, matches: true, recorded_hash: priced[1]!.metadata.request.sha256 });
      expect(JSON.stringify(replay.request)).toContain("hi\\n");
    });
  }

  it("TASK-016: calls sent at the same instant are taken in turn: each answered whole, each reply its own row, in order", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    await script(agent.model, [{ content: "first answer", delay_ms: 300 }, { content: "second answer" }, { content: "third answer" }]);
    const { runId, errors } = await gatewayTurn(agent.id, "openai", async (turn) => {
      const answers = await Promise.all(["one", "two", "three"].map((text) => turn.relay(harnessCall([{ role: "user", content: text }])).then(read)));
      expect(answers.map((a) => a.content.map((b) => (b.type === "text" ? b.text : "")).join(""))).toEqual(["first answer", "second answer", "third answer"]);
      await turn.relay(harnessCall([{ role: "user", content: "last" }], false)).then((r) => r.text());
    });
    expect(errors).toEqual([]);
    const replies = (await rows(token, runId)).filter((r) => r.role === "assistant").map((r) => r.payload.content);
    expect(replies.slice(0, 3)).toEqual(["first answer", "second answer", "third answer"]);
  });

  it("TASK-027: a provider's 429 ends the turn with its reset; the harness is answered an error it stops on, and later calls are refused without a provider call", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    await script(agent.model, [{ status: 429, headers: { "retry-after": "120" } }]);
    const { errors } = await gatewayTurn(agent.id, "openai", async (turn) => {
      const refused = await turn.relay(harnessCall([{ role: "user", content: "go" }]));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("429");
      expect((await turn.relay(harnessCall([{ role: "user", content: "again" }]))).status).toBe(400);
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "provider.error", http_status: 429 });
    expect(Date.parse(errors[0]!.reset_at as string)).toBeGreaterThan(Date.now() + 60_000);
    expect(await modelRequests(agent.model)).toHaveLength(1);
  });

  it("USAGE-005 / TASK-028: over the spend limit, a call is refused before the provider and the turn ends at the limit", async () => {
    const { token: other } = await seedOrganisation("Gateway spender");
    const g = (await call("POST", "/api/guilds", { token: other, body: { name: "G" } })).json.id;
    const agent = await newAgent(other, g, { coding: true });
    await script(agent.model, [{ content: "expensive", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } }, { content: "never" }]);
    expect((await call("PATCH", "/api/organisation", { token: other, body: { monthly_spend_limit_usd: 0.5 } })).status).toBe(200);
    const { errors } = await gatewayTurn(agent.id, "openai", async (turn) => {
      await (await turn.relay(harnessCall([{ role: "user", content: "spend" }]))).text();
      const refused = await turn.relay(harnessCall([{ role: "user", content: "more" }]));
      expect(refused.status).toBe(400);
    });
    expect(errors.map((e) => e.code)).toEqual(["usage.spend_limit"]);
    expect(await modelRequests(agent.model)).toHaveLength(1);
  });

  it("ISSUE-33: a call over the task's budget is refused before the provider and the turn ends task.budget; the call that crossed it was the last", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    // 1000 in and 100 out cost 0.0012 USD at mock-model's prices: over a 0.001 budget.
    await script(agent.model, [{ content: "crossing", usage: { prompt_tokens: 1000, completion_tokens: 100 } }, { content: "never" }]);
    const budget: TaskBudget = { limitUsd: 0.001, spentUsd: 0 };
    const { errors } = await gatewayTurn(
      agent.id,
      "openai",
      async (turn) => {
        const first = await turn.relay(harnessCall([{ role: "user", content: "work" }]));
        expect(first.status).toBe(200);
        // The box reads the whole reply; its row (and its cost) is written then.
        await first.text();
        const refused = await turn.relay(harnessCall([{ role: "user", content: "more" }]));
        expect(refused.status).toBe(400);
        expect(await refused.text()).toContain("budget");
      },
      budget,
    );
    expect(budget.spentUsd).toBe(0.0012);
    expect(errors.map((e) => e.code)).toEqual(["task.budget"]);
    expect(await modelRequests(agent.model)).toHaveLength(1);
  });

  it("TASK-016: a body that is not a Messages request is refused with a message naming the field, and nothing is written", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    const { runId, errors } = await gatewayTurn(agent.id, "openai", async (turn) => {
      const refused = await turn.relay(
        new Request("https://task/model-gateway/messages", { method: "POST", body: JSON.stringify({ model: "m", messages: "no" }) }),
      );
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/max_tokens|messages/);
    });
    expect(errors).toEqual([]);
    expect((await rows(token, runId)).filter((r) => r.role === "assistant")).toEqual([]);
  });
});
