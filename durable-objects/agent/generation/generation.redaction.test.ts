import { beforeAll, describe, expect, it } from "vitest";
import { SECRET_VALUE_CANARY } from "../../../test/setup/secret-canary";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import { openEvents, type SseEvent } from "../../../test/workerd/sse";

const count = (text: string, value: string) => text.split(value).length - 1;

async function storeSecret(token: string, name: string, value: string, agentId: string) {
  const created = await call("POST", "/api/secrets", { token, body: { name, value } });
  expect(created.status).toBe(201);
  expect((await call("POST", `/api/secrets/${created.json.id}/grants`, { token, body: { agent_id: agentId } })).status).toBe(201);
}

/**
 * A model that echoes a secret it holds (ERR-011): in its streamed content and reasoning,
 * split across deltas by the mock's chunking, and in a tool call's arguments. The test helpers
 * also refuse the canary in every response and event they read, and the teardown in every row
 * and console line.
 */
describe("redaction of what the model says (ERR-011)", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("ERR-011 / SEC-014 / EXACT-003: a secret the model echoes is redacted in the deltas, the stored rows and the prompt replay, and the calls still run", async () => {
    const agent = await newAgent(token, guildId);
    await storeSecret(token, "ECHO_KEY", SECRET_VALUE_CANARY, agent.id);
    await script(agent.model, [
      {
        reasoning: `I hold the key ${SECRET_VALUE_CANARY} and may use it`,
        content: `Your key is ${SECRET_VALUE_CANARY}, base64 ${btoa(SECRET_VALUE_CANARY)}.`,
        tool_calls: [toolCall("note_read", { title: `key ${SECRET_VALUE_CANARY}` })],
      },
      { content: `Done with ${SECRET_VALUE_CANARY}` },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const { opened, events } = openEvents(token, run.id, (seen: SseEvent[]) =>
      seen.some((e) => e.event === "status" && e.data.generating === false && e.data.status),
    );
    await opened;
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "go" } })).status).toBe(202);
    expect((await settled(token, run.id)).errors).toEqual([]);
    const seen = await events;

    // The deltas: the whole text arrives, the value replaced, in every kind.
    const deltas = seen.filter((e) => e.event === "delta");
    const content = deltas.filter((e) => e.data.kind === "content").map((e) => e.data.text as string);
    const reasoning = deltas.filter((e) => e.data.kind === "reasoning").map((e) => e.data.text as string);
    expect(content.length).toBeGreaterThan(3);
    expect(content.join("")).toBe("Your key is [REDACTED:ECHO_KEY], base64 [REDACTED:ECHO_KEY].Done with [REDACTED:ECHO_KEY]");
    expect(reasoning.join("")).toBe("I hold the key [REDACTED:ECHO_KEY] and may use it");
    expect(count(JSON.stringify(seen), SECRET_VALUE_CANARY)).toBe(0);
    expect(count(JSON.stringify(seen), SECRET_VALUE_CANARY.slice(0, 12))).toBe(0);

    // The stored rows: content, reasoning and the call's arguments.
    const stored = await rows(token, run.id);
    const first = stored.find((r) => r.role === "assistant")!;
    expect(first.payload.content).toBe("Your key is [REDACTED:ECHO_KEY], base64 [REDACTED:ECHO_KEY].");
    expect(first.metadata.reasoning).toBe("I hold the key [REDACTED:ECHO_KEY] and may use it");
    expect(JSON.parse(first.payload.tool_calls[0].function.arguments)).toEqual({ title: "key [REDACTED:ECHO_KEY]" });
    // The call ran with the model's own arguments: the tool saw the value (its result is redacted too).
    const result = stored.find((r) => r.role === "tool")!;
    expect(result.payload.content).toContain("[REDACTED:ECHO_KEY]");
    expect(count(JSON.stringify(stored), SECRET_VALUE_CANARY)).toBe(0);

    // The next call sent the row as stored, and the replay of it is exact.
    const last = stored.filter((r) => r.role === "assistant").at(-1)!;
    const replay = await call("GET", `/api/runs/${run.id}/messages/${last.seq}/prompt`, { token });
    expect(replay.status).toBe(200);
    expect(replay.json.matches).toBe(true);
    expect(count(JSON.stringify(replay.json), SECRET_VALUE_CANARY)).toBe(0);
    const sent = (await modelRequests(agent.model)).at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
    expect(sent.find((m) => m.role === "assistant")!.content).toBe("Your key is [REDACTED:ECHO_KEY], base64 [REDACTED:ECHO_KEY].");
    expect(count(JSON.stringify(sent), SECRET_VALUE_CANARY)).toBe(0);

    const runView = await call("GET", `/api/runs/${run.id}`, { token });
    expect(count(JSON.stringify(runView.json), SECRET_VALUE_CANARY)).toBe(0);
  });

  it("ERR-011 / GROUP-015: a group_post carrying the secret reaches the guild's chat redacted", async () => {
    const agent = await newAgent(token, guildId, { name: "Teller" });
    await storeSecret(token, "TOLD_KEY", SECRET_VALUE_CANARY, agent.id);
    await script(agent.model, [{ tool_calls: [toolCall("group_post", { content: `the key is ${SECRET_VALUE_CANARY}` })] }, { content: "posted" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "tell the group" } })).json;
    expect((await settled(token, run.id)).errors).toEqual([]);
    const chat = await call("GET", `/api/guilds/${guildId}/chat`, { token });
    const posted = (chat.json.data as Array<{ author_agent_id: string | null; content: string }>).filter((m) => m.author_agent_id === agent.id);
    expect(posted.map((m) => m.content)).toEqual(["the key is [REDACTED:TOLD_KEY]"]);
    expect(count(JSON.stringify(chat.json), SECRET_VALUE_CANARY)).toBe(0);
  });

  it("ERR-011 / SCHED-037: memory_write and schedule_create carrying the secret store the marker, not the value", async () => {
    const agent = await newAgent(token, guildId, { name: "Keeper", memory: true });
    await storeSecret(token, "KEPT_KEY", SECRET_VALUE_CANARY, agent.id);
    await script(agent.model, [
      {
        tool_calls: [
          toolCall("memory_write", { content: `remember ${SECRET_VALUE_CANARY}` }),
          toolCall("schedule_create", {
            description: `sync ${SECRET_VALUE_CANARY}`,
            instruction: `call the API with ${SECRET_VALUE_CANARY}`,
            cron: "0 0 1 1 *",
          }),
        ],
      },
      { content: "kept" },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "keep it" } })).json;
    expect((await settled(token, run.id)).errors).toEqual([]);
    const memory = await call("GET", `/api/agents/${agent.id}/memory`, { token });
    expect(memory.json.content).toBe("remember [REDACTED:KEPT_KEY]");
    const schedules = await call("GET", `/api/agents/${agent.id}/schedules`, { token });
    expect(schedules.json.data.map((s: { description: string; instruction: string }) => [s.description, s.instruction])).toEqual([
      ["sync [REDACTED:KEPT_KEY]", "call the API with [REDACTED:KEPT_KEY]"],
    ]);
    expect(count(JSON.stringify([memory.json, schedules.json]), SECRET_VALUE_CANARY)).toBe(0);
  });
});
