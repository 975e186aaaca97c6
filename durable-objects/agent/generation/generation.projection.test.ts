import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

const big = "lorem ipsum dolor sit amet ".repeat(150); // about 4 KB, above the 2048-byte floor

async function twoGenerations(token: string, guildId: string, settings: Record<string, unknown>) {
  const agent = await newAgent(token, guildId, settings);
  await script(agent.model, [
    { tool_calls: [toolCall("note_write", { title: "big", body: big })] },
    { tool_calls: [toolCall("note_read", { title: "big" }), toolCall("note_list", {})] },
    { content: "read it" },
    { content: "second turn" },
  ]);
  const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "store and read" } })).json;
  await settled(token, run.id);
  await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "and now?" } });
  await settled(token, run.id);
  return { agent, run, requests: await modelRequests(agent.model), transcript: await rows(token, run.id) };
}

describe("projection and exactness", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("PROJ-001 / PROJ-002 / PROJ-005 / PROJ-007: with keep 1 the previous generation's large result is stubbed in the request only; small ones stay", async () => {
    const { requests, transcript } = await twoGenerations(token, guildId, {});
    const readRow = transcript.find((r) => r.metadata.tool_name === "note_read")!;
    const sent = requests[3]!.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>;
    const stub = sent.find((m) => m.tool_call_id === readRow.payload.tool_call_id)!;
    expect(stub.content).toBe(`[tool result stubbed] {"tool_name":"note_read","source_seq":${readRow.seq},"path":"notes/big"} Call note_read again to see it.`);
    // Within its own generation the result was live.
    expect((requests[2]!.body.messages as typeof sent).find((m) => m.tool_call_id === readRow.payload.tool_call_id)!.content).toContain("lorem ipsum");
    // The small note_list result is under the floor: never stubbed.
    const listRow = transcript.find((r) => r.metadata.tool_name === "note_list")!;
    expect(sent.find((m) => m.tool_call_id === listRow.payload.tool_call_id)!.content).toBe(listRow.payload.content);
    // The stored row is unchanged.
    expect(readRow.payload.content).toContain("lorem ipsum");
    // Assistant tool calls and user text are unchanged (PROJ-003).
    expect(sent.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["store and read", "and now?"]);
  });

  it("PROJ-006: with keep 2 the previous generation's results stay live", async () => {
    const { requests, transcript } = await twoGenerations(token, guildId, { keep_tool_result_generations: 2 });
    const readRow = transcript.find((r) => r.metadata.tool_name === "note_read")!;
    const sent = requests[3]!.body.messages as Array<{ content: string; tool_call_id?: string }>;
    expect(sent.find((m) => m.tool_call_id === readRow.payload.tool_call_id)!.content).toBe(readRow.payload.content);
  });

  it("EXACT-003 / EXACT-004 / PROJ-010: the replayed prompt of every assistant row equals what was sent, and its hash matches the recorded one", async () => {
    const { run, requests, transcript } = await twoGenerations(token, guildId, {});
    const assistants = transcript.filter((r) => r.role === "assistant");
    expect(assistants).toHaveLength(4);
    for (const [i, row] of assistants.entries()) {
      const replay = await call("GET", `/api/runs/${run.id}/messages/${row.seq}/prompt`, { token });
      expect(replay.status).toBe(200);
      expect(replay.json.matches).toBe(true);
      expect(replay.json.hash).toBe(row.metadata.projection.hash);
      expect(replay.json.messages).toEqual(requests[i]!.body.messages);
      expect(replay.json.tools).toEqual(requests[i]!.body.tools);
    }
    expect((await call("GET", `/api/runs/${run.id}/messages/1/prompt`, { token })).status).toBe(404);
  });

  it("EXACT-005 / EXACT-008 / EXACT-010 / EXACT-011 / EXACT-026: the snapshot fixes settings and tools; a later agent change reaches new runs only", async () => {
    const agent = await newAgent(token, guildId, { max_tool_calls: 7 });
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(run.snapshot.model).toMatchObject({
      max_tool_calls: 7,
      max_input_tokens: 100000,
      keep_tool_result_generations: 1,
      projection_policy_version: 1,
      thinking_level: "off",
    });
    expect(run.snapshot.flags).toEqual({ browser: false, coding: false, cli: true, scripting: true, memory: false, group_post: true });
    expect(run.snapshot.tools).toEqual(expect.arrayContaining(["note_write", "note_read", "note_list", "note_delete", "record_create", "record_list"]));
    await call("PATCH", `/api/agents/${agent.id}`, { token, body: { max_tool_calls: 3 } });
    await script(agent.model, [{ tool_calls: [toolCall("note_list", {})] }, { content: "ok" }]);
    await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "go" } });
    await settled(token, run.id);
    const tool = (await rows(token, run.id)).find((r) => r.role === "tool")!;
    expect(tool.payload.content.split("\n").at(-1)).toBe("remaining_tool_calls: 6");
    expect((await modelRequests(agent.model))[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(run.snapshot.tools);
    const fresh = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect(fresh.snapshot.model.max_tool_calls).toBe(3);
  });

  it("ATT-001 / ATT-002 / ATT-003 / ATT-004 / ATT-006 / ATT-009: an image (with an empty caption) is stored by reference, hydrated into the request as a data URL, and counted as 1600 tokens", async () => {
    const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) =>
      c.charCodeAt(0),
    );
    const form = new FormData();
    form.append("file", new File([png], "dot.png", { type: "image/png" }));
    const upload = await (exports as unknown as { default: Fetcher }).default.fetch("http://api.test/api/attachments", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(upload.status).toBe(201);
    const attachment = (await upload.json()) as { id: string; kind: string };
    expect(attachment.kind).toBe("image");
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "a dot" }, { content: "plain" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "", attachments: [attachment.id] } })).json;
    await settled(token, run.id);
    const transcript = await rows(token, run.id);
    expect(transcript[1]!.payload).toEqual({ role: "user", content: "" });
    expect(transcript[1]!.metadata.attachments).toEqual([{ id: attachment.id, filename: "dot.png", mime: "image/png", kind: "image" }]);
    const sent = (await modelRequests(agent.model))[0]!.body.messages[1];
    expect(sent.content).toEqual([{ type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } }]);
    // The same prompt with one character instead of the image counts about 1600 fewer tokens.
    const plain = await newAgent(token, guildId);
    await script(plain.model, [{ content: "x" }]);
    const textRun = (await call("POST", `/api/agents/${plain.id}/runs`, { token, body: { message: "." } })).json;
    await settled(token, textRun.id);
    const withImage = transcript[2]!.metadata.projection.prompt_tokens_counted as number;
    const withText = (await rows(token, textRun.id))[2]!.metadata.projection.prompt_tokens_counted as number;
    expect(withImage - withText).toBeGreaterThanOrEqual(1598);
    expect(withImage - withText).toBeLessThanOrEqual(1600);
    // Empty content without an image is refused (OP-ATT-6).
    expect((await call("POST", `/api/runs/${textRun.id}/messages`, { token, body: { content: " " } })).status).toBe(422);
  });
});
