import { describe, expect, it } from "vitest";
import { newAgent, rows, script, toolCall } from "../../../test/workerd/agents";
import { postChat, untilDelivered } from "../../../test/workerd/group-chat";
import { call, seedGuild } from "../../../test/workerd/seed";

describe("a completed group run, inspected", () => {
  it("RUN-007: it stays in History; its exact prompt (Memory included), the Group Chat info row and the private tool trace can be read; the chat shows none of the trace", {
    timeout: 40_000,
  }, async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { name: "Keeper", memory: true, group_post: false });
    await call("PUT", `/api/agents/${agent.id}/memory`, { token, body: { content: "The operator likes tea." } });
    await script(agent.model, [
      { tool_calls: [toolCall("note_write", { title: "private plan", body: "only in my trace" })] },
      { tool_calls: [toolCall("memory_write", { content: "The operator likes tea. They posted today." })] },
      { content: "read it" },
    ]);
    const posted = await postChat(token, guildId, "good morning");
    const [run] = await untilDelivered(token, agent.id, 1);
    expect(run).toMatchObject({ kind: "group", status: "completed", label: "Group chat" });

    const history = (await call("GET", `/api/agents/${agent.id}/runs?kind=group`, { token })).json.data as Array<{ id: string }>;
    expect(history.map((r) => r.id)).toEqual([run!.id]);
    const transcript = await rows(token, run!.id);
    expect(transcript[1]!.payload.content.startsWith("Group Chat info: ")).toBe(true);
    const trace = transcript.filter((r) => r.role === "tool").map((r) => r.metadata.tool_name);
    expect(trace).toEqual(["note_write", "memory_write"]);

    const firstReply = transcript.find((r) => r.role === "assistant")!;
    const prompt = (await call("GET", `/api/runs/${run!.id}/messages/${firstReply.seq}/prompt`, { token })).json;
    expect(prompt.matches).toBe(true);
    expect(prompt.messages[0].content).toContain("<memory>");
    expect(prompt.messages[0].content).toContain("The operator likes tea.");

    const chat = (await call("GET", `/api/guilds/${guildId}/chat`, { token })).json.data as Array<{ seq: number; content: string }>;
    expect(chat.map((r) => r.seq)).toEqual([posted.seq]);
    expect(JSON.stringify(chat)).not.toContain("only in my trace");
  });
});
