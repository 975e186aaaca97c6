import { beforeAll, describe, expect, it } from "vitest";
import { EVENT_STREAMS } from "../../core/events/streams";
import { newAgent, script, settled, toolCall, untilGenerating } from "../../test/workerd/agents";
import { postChat, untilDelivered } from "../../test/workerd/group-chat";
import { call, seedGuild, seedOrganisation } from "../../test/workerd/seed";
import { eventMisfits, openEvents, openStream, type SseEvent } from "../../test/workerd/sse";

describe("run events over SSE", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("answers 404 for another organisation's run and 422 for a bad cursor", async () => {
    const { token: other } = await seedOrganisation();
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect((await call("GET", `/api/runs/${run.id}/events`, { token: other })).status).toBe(404);
    expect((await call("GET", `/api/runs/${run.id}/events?after_seq=abc`, { token })).status).toBe(422);
  });

  it("SSE-001 / SSE-002: every event a run's stream sends (rows of each role, deltas, status, errors) parses against its schema", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { content: "checking", reasoning: "list them", tool_calls: [toolCall("note_list", {})], stream_chunk_ms: 10 },
      { content: "No notes.", stream_chunk_ms: 10 },
      { content: "slow", delay_ms: 8_000 },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const cancelled = (events: SseEvent[]) =>
      events.some((e) => e.event === "error") && events.at(-1)?.event === "status" && events.at(-1)?.data.generating === false;
    const { opened, events: listening } = openEvents(token, run.id, cancelled, { timeoutMs: 20_000 });
    await opened;
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "any notes?" } })).status).toBe(202);
    await settled(token, run.id);
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "and now?" } })).status).toBe(202);
    await untilGenerating(token, run.id);
    expect((await call("POST", `/api/runs/${run.id}/cancel`, { token })).status).toBe(200);
    const events = await listening;
    expect(new Set(events.map((e) => e.event))).toEqual(new Set(["message", "status", "delta", "error"]));
    expect(new Set(events.filter((e) => e.event === "message").map((e) => e.data.role))).toEqual(new Set(["system", "user", "assistant", "tool"]));
    expect(eventMisfits(events, EVENT_STREAMS.run)).toEqual([]);
    expect(events.filter((e) => e.event === "message").every((e) => e.id === String(e.data.seq))).toBe(true);
  }, 30_000);

  it("SSE-005 / SSE-006: every event a guild's stream sends (rows, status, deliveries, script changes) parses against its schema", async () => {
    const agent = await newAgent(token, guildId, { name: "Typed reader" });
    await script(agent.model, [{ content: "read it" }]);
    const done = (events: SseEvent[]) => events.filter((e) => e.event === "delivery").length >= 2 && events.some((e) => e.event === "agent.scripts.changed");
    const { opened: listeningOpened, events: listening } = openStream(token, `/api/guilds/${guildId}/events`, done, { timeoutMs: 20_000 });
    await listeningOpened;
    const posted = await postChat(token, guildId, "hello @Typed reader");
    await untilDelivered(token, agent.id, 1);
    const write = { name: "typed_events", description: "Prints", source: 'print("x")\n' };
    expect((await call("POST", `/api/agents/${agent.id}/scripts`, { token, body: write })).status).toBe(201);
    const events = await listening;
    expect(new Set(events.map((e) => e.event))).toEqual(new Set(["status", "message", "delivery", "agent.scripts.changed"]));
    expect(events.find((e) => e.event === "message")!.id).toBe(String(posted.seq));
    expect(eventMisfits(events, EVENT_STREAMS.guild)).toEqual([]);
  }, 30_000);
});
