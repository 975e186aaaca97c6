import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

describe("reasoning in metadata", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("RUN-016 / GEN-028: streamed reasoning text and provider reasoning blocks are stored verbatim in the row's metadata and never sent back to the model", async () => {
    const agent = await newAgent(token, guildId, { thinking_level: "high" });
    const blocks = [
      { type: "reasoning.text", id: "r1", format: "anthropic-claude-v1", text: "The user wants notes; list them first.", signature: "sig-9f2" },
      { type: "reasoning.encrypted", id: "r2", format: "anthropic-claude-v1", data: "ZW5jcnlwdGVkLXRob3VnaHQ=" },
    ];
    await script(agent.model, [{ reasoning_details: blocks, tool_calls: [toolCall("note_list", {})] }, { content: "No notes yet." }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "any notes?" } })).json;
    expect(run.snapshot.model.thinking_level).toBe("high");
    await settled(token, run.id);

    const assistant = (await rows(token, run.id)).find((r) => r.role === "assistant")!;
    expect(assistant.metadata.reasoning).toBe(blocks[0]!.text);
    expect(assistant.metadata.reasoning_blocks).toEqual(blocks.map((block, index) => ({ ...block, index })));
    expect(Object.keys(assistant.payload).sort()).toEqual(["content", "role", "tool_calls"]);

    const requests = await modelRequests(agent.model);
    expect(requests[0]!.body.reasoning_effort).toBe("high");
    const history = JSON.stringify(requests[1]!.body.messages);
    for (const leaked of ["sig-9f2", "ZW5jcnlwdGVkLXRob3VnaHQ=", "list them first", "reasoning"]) expect(history).not.toContain(leaked);
  });

  it("RUN-016: a reply without reasoning stores neither field", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "plain" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hi" } })).json;
    await settled(token, run.id);
    const assistant = (await rows(token, run.id)).find((r) => r.role === "assistant")!;
    expect(assistant.metadata).not.toHaveProperty("reasoning");
    expect(assistant.metadata).not.toHaveProperty("reasoning_blocks");
  });
});
