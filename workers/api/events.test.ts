import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, rows, script, settled, toolCall } from "../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../test/workerd/seed";
import { collectEvents, type SseEvent } from "../../test/workerd/sse";

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
    const listening = collectEvents(token, run.id, ended);
    await new Promise((r) => setTimeout(r, 100));
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

  it("answers 404 for another organisation's run and 422 for a bad cursor", async () => {
    const { token: other } = await seedOrganisation();
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect((await call("GET", `/api/runs/${run.id}/events`, { token: other })).status).toBe(404);
    expect((await call("GET", `/api/runs/${run.id}/events?after_seq=abc`, { token })).status).toBe(422);
  });
});
