import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { guildObject } from "../../bindings/objects";
import { loadRows, toWireRow } from "../../core/db/transcript";
import type { GuildEventData } from "../../core/events/streams";
import { newAgent, objectOf, rows, script, settled, toolCall } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { collectEvents, openEvents, openStream, type SseEvent } from "../../test/workerd/sse";
import type { AgentObject } from "../agent/agent-object";
import type { GuildObject } from "../guild/guild-object";
import { SseHub } from "./sse-hub";

describe("event scopes", () => {
  it("SSE-006: a run's stream carries that run's events only, and a guild's stream that guild's posts only", async () => {
    const { token, guildId } = await seedGuild();
    const otherGuild = (await call("POST", "/api/guilds", { token, body: { name: "Elsewhere" } })).json.id as string;
    const watched = await newAgent(token, guildId, { group_post: false });
    const neighbour = await newAgent(token, guildId, { group_post: false });
    await script(watched.model, [{ content: "WATCHED-REPLY" }]);
    await script(neighbour.model, [{ content: "NEIGHBOUR-REPLY" }]);
    const runA = (await call("POST", `/api/agents/${watched.id}/runs`, { token, body: {} })).json;
    const runB = (await call("POST", `/api/agents/${neighbour.id}/runs`, { token, body: {} })).json;

    const text = (events: Array<{ data: unknown }>) => JSON.stringify(events.map((e) => e.data));
    const { opened, events: runEvents } = openEvents(
      token,
      runA.id,
      (events) => text(events).includes("WATCHED-REPLY") && events.some((e) => e.event === "status" && e.data.generating === false && e.data.generation === 1),
    );
    await opened;
    await call("POST", `/api/runs/${runB.id}/messages`, { token, body: { content: "NEIGHBOUR-ASK" } });
    await settled(token, runB.id);
    await call("POST", `/api/runs/${runA.id}/messages`, { token, body: { content: "WATCHED-ASK" } });
    const seen = await runEvents;
    expect(text(seen)).toContain("WATCHED-ASK");
    expect(text(seen)).not.toContain("NEIGHBOUR");
    expect(seen.filter((e) => e.data?.run_id).every((e) => e.data.run_id === runA.id)).toBe(true);

    const { opened: guildEventsOpened, events: guildEvents } = openStream(token, `/api/guilds/${guildId}/events`, (events) =>
      text(events).includes("HERE-POST"),
    );
    await guildEventsOpened;
    expect((await call("POST", `/api/guilds/${otherGuild}/chat`, { token, body: { content: "THERE-POST" } })).status).toBe(201);
    expect((await call("POST", `/api/guilds/${guildId}/chat`, { token, body: { content: "HERE-POST" } })).status).toBe(201);
    const guildSeen = await guildEvents;
    expect(text(guildSeen)).toContain("HERE-POST");
    expect(text(guildSeen)).not.toContain("THERE-POST");
  });
});

/** A not-generating status after the generation started: the end of the stream we wait for. */
const ended = (events: SseEvent[]) => {
  const started = events.findIndex((e) => e.event === "status" && e.data.generating === true);
  return started !== -1 && events.slice(started).some((e) => e.event === "status" && e.data.generating === false);
};
const seqs = (events: SseEvent[]) => events.filter((e) => e.event === "message").map((e) => Number(e.id));

describe("run events over SSE", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SSE-001 / SSE-002: deltas stream first, then each committed row arrives once with id: seq, then the end status", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { content: "thinking about notes", reasoning: "should I list notes?", tool_calls: [toolCall("note_list", {})], stream_chunk_ms: 20 },
      { content: "There are no notes yet.", stream_chunk_ms: 20 },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const { opened, events: listening } = openEvents(token, run.id, ended);
    await opened;
    // (A subscriber first gets the history and a status saying the run is idle.)
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "any notes?" } })).status).toBe(202);
    const events = await listening;
    expect(seqs(events)).toEqual([0, 1, 2, 3, 4]);
    const deltas = events.filter((e) => e.event === "delta");
    expect(
      deltas
        .filter((d) => d.data.kind === "content")
        .map((d) => d.data.text)
        .join(""),
    ).toContain("There are no notes yet.");
    expect(
      deltas
        .filter((d) => d.data.kind === "reasoning")
        .map((d) => d.data.text)
        .join(""),
    ).toBe("should I list notes?");
    // Each row's deltas come before the row itself: the committed row is the history.
    const lastDelta = events.findLastIndex((e) => e.event === "delta");
    const finalRow = events.findIndex((e) => e.event === "message" && e.id === "4");
    expect(lastDelta).toBeLessThan(finalRow);
    const assistant = events.find((e) => e.id === "2")!.data;
    expect(assistant.payload.tool_calls[0].function.name).toBe("note_list");
    expect(assistant.metadata.reasoning).toBe("should I list notes?");
    expect(assistant.payload.reasoning).toBeUndefined();
    expect(events.find((e) => e.event === "status" && e.data.generating === true)).toBeDefined();
  });

  it("SSE-003 / OP-SSE-3: a reconnect with Last-Event-ID replays the missed rows, with no gap and no duplicate", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [
      { tool_calls: [toolCall("note_write", { title: "a", body: "1" })] },
      { tool_calls: [toolCall("note_write", { title: "b", body: "2" })], delay_ms: 400 },
      { content: "done", delay_ms: 400 },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "write two notes" } })).json;
    // The first connection drops after row 3.
    const first = await collectEvents(token, run.id, (events) => seqs(events).includes(3));
    const seen = seqs(first);
    // Rows 0..6: system, user, then two tool rounds and the final reply.
    const second = await collectEvents(token, run.id, (events) => seqs(events).includes(6), { lastEventId: String(seen.at(-1)) });
    const all = [...seen, ...seqs(second)];
    await settled(token, run.id);
    const stored = (await rows(token, run.id)).map((r) => r.seq);
    expect(all).toEqual(stored);
    expect(new Set(all).size).toBe(all.length);
  });

  it("SSE-003: ?after_seq replays only the rows after a client's loaded history", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "hello" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hi" } })).json;
    await settled(token, run.id);
    const events = await collectEvents(token, run.id, (e) => seqs(e).includes(2), { afterSeq: 1, timeoutMs: 2000 });
    expect(seqs(events)).toEqual([2]);
  });
});

describe("bounded memory: streams, replies, prompt replay", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("HARDEN-3: a client that goes away is forgotten by the agent object at its next event, and past the run's cap the API answers 429 with the JSON error shape", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const count = () => runInDurableObject(objectOf(agent.id), (i: AgentObject) => i.rooms.context.hub.subscribers(run.id));

    await collectEvents(token, run.id, (events) => events.some((e) => e.event === "status"));
    // The object learns of it at the next event it sends (the keepalive, every 15 s, at the latest).
    for (let i = 0; i < 100 && (await count()) > 0; i++) {
      await runInDurableObject(objectOf(agent.id), (o: AgentObject) => o.rooms.context.hub.publish(run.id, "status", { run_id: run.id, generating: false }));
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await count()).toBe(0);

    // A cap of one for this run's object, as MAX_RUN_SUBSCRIBERS would set it.
    await runInDurableObject(objectOf(agent.id), (i: AgentObject) => {
      (i.rooms.context as { hub: SseHub }).hub = new SseHub(
        (id, after, limit) => i.rooms.context.database.use(async (db) => (await loadRows(db, id, after, limit)).map(toWireRow)),
        { maxSubscribers: 1 },
      );
    });
    const controller = new AbortController();
    const open = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test/api/runs/${run.id}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(open.status).toBe(200);
    const refused = await call("GET", `/api/runs/${run.id}/events`, { token });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: "stream.too_many_subscribers", details: { limit: 1 } });
    controller.abort();
    await open.body?.cancel().catch(() => {});
  });

  it("HARDEN-3: past the guild's cap its event stream answers 429 with the JSON error shape", async () => {
    // A cap of one for this guild's object, as MAX_GUILD_SUBSCRIBERS would set it.
    await runInDurableObject(guildObject(env as unknown as Env, guildId), (instance: GuildObject) => {
      (instance.chat as unknown as { hub: SseHub<GuildEventData> }).hub = new SseHub<GuildEventData>(async () => [], { maxSubscribers: 1 });
    });
    const controller = new AbortController();
    const open = await (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test/api/guilds/${guildId}/events?after_seq=0`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(open.status).toBe(200);
    const refused = await call("GET", `/api/guilds/${guildId}/events?after_seq=0`, { token });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: "stream.too_many_subscribers", details: { limit: 1 } });
    controller.abort();
    await open.body?.cancel().catch(() => {});
  });
});
