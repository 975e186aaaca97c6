import { describe, expect, it } from "vitest";
import { newAgent, script } from "../../test/workerd/agents";
import { groupRuns, postChat, seedChatRows, untilDelivered, untilReading } from "../../test/workerd/group-chat";
import { call, seedGuild } from "../../test/workerd/seed";
import { collectStream, openStream } from "../../test/workerd/sse";

describe("group chat API", () => {
  it("GROUP-016 / SSE-003: a subscriber more than 1,000 rows behind gets a gap event, then the newest 1,000 rows and live ones; the skipped rows read with before_seq", async () => {
    const { token, guildId } = await seedGuild();
    await seedChatRows(guildId, 1_100);
    const path = `/api/guilds/${guildId}/events`;
    const events = await collectStream(token, path, (e) => e.some((x) => x.event === "status"), { lastEventId: "50", timeoutMs: 20_000 });
    expect(events[0]).toMatchObject({ event: "gap", data: { after_seq: 50, resumes_at_seq: 101 } });
    const ids = events.filter((e) => e.event === "message").map((e) => Number(e.id));
    expect(ids).toEqual(Array.from({ length: 1_000 }, (_, i) => 101 + i));
    const skipped = (await call("GET", `/api/guilds/${guildId}/chat?before_seq=101&limit=50`, { token })).json;
    expect(skipped.data.map((m: any) => m.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 51 + i));
  }, 30_000);

  it("GROUP-016: the guild's event stream replays rows after Last-Event-ID, then streams new rows and who is reading", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { name: "Reader" });
    await script(agent.model, [{ content: "read it", delay_ms: 200 }]);
    const first = await postChat(token, guildId, "first");
    await untilDelivered(token, agent.id, 1);
    const path = `/api/guilds/${guildId}/events`;
    const replayed = await collectStream(token, path, (e) => e.some((x) => x.event === "status"), { lastEventId: "0" });
    expect(replayed.map((e) => [e.event, e.id])).toEqual([
      ["message", String(first.seq)],
      ["status", undefined],
    ]);
    expect(replayed[0]!.data).toMatchObject({ seq: first.seq, content: "first", author_kind: "operator" });
    expect(replayed[1]!.data).toEqual({ guild_id: guildId, reading: [] });
    // Live: a new row, then the agent's delivery starting and completing.
    await script(agent.model, [{ content: "again" }]);
    const { opened: liveOpened, events: live } = openStream(token, path, (e) => e.filter((x) => x.event === "delivery").length === 2, { afterSeq: first.seq });
    await liveOpened;
    const second = await postChat(token, guildId, "second");
    const events = await live;
    const [, run] = await untilDelivered(token, agent.id, 2);
    expect(events.map((e) => e.event)).toEqual(["status", "message", "delivery", "delivery"]);
    expect(events[1]).toMatchObject({ id: String(second.seq), data: { content: "second" } });
    expect(events[2]!.data).toEqual({ agent_id: agent.id, agent_name: "Reader", run_id: run!.id, through_seq: second.seq, state: "started" });
    expect(events[3]!.data).toMatchObject({ run_id: run!.id, state: "completed" });
  });
});

describe("who is reading", () => {
  it("GROUP-016: a subscriber that connects while an agent reads learns it from the stream's status", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { name: "Slow reader" });
    await script(agent.model, [{ content: "done reading", delay_ms: 1_000 }]);
    const posted = await postChat(token, guildId, "a long read");
    await untilReading(token, agent.id);
    const [run] = await groupRuns(token, agent.id);
    for (let i = 0; i < 50; i++) {
      const [status] = await collectStream(token, `/api/guilds/${guildId}/events`, (e) => e.some((x) => x.event === "status"));
      if (status!.data.reading.length > 0) {
        expect(status!.data.reading).toEqual([{ agent_id: agent.id, agent_name: "Slow reader", run_id: run!.id, through_seq: posted.seq, state: "started" }]);
        break;
      }
      expect(i, "the delivery never showed as reading").toBeLessThan(49);
      await new Promise((r) => setTimeout(r, 20));
    }
    await untilDelivered(token, agent.id, 1);
    const [after] = await collectStream(token, `/api/guilds/${guildId}/events`, (e) => e.some((x) => x.event === "status"));
    expect(after!.data.reading).toEqual([]);
  });
});
