import { describe, expect, it } from "vitest";
import { newAgent, script } from "../../test/workerd/agents";
import { groupRuns, postChat, seedChatRows, untilDelivered } from "../../test/workerd/group-chat";
import { call, seedGuild } from "../../test/workerd/seed";

describe("group chat API", () => {
  it("GROUP-002: bad posts get a 422 naming the field and write nothing; another organisation's guild is 404", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { name: "Target" });
    const cases: Array<[unknown, string]> = [
      [{ content: "   " }, "content"],
      [{ content: "x".repeat(8001) }, "content"],
      [{}, "content"],
      [{ content: "hi", tagged: [crypto.randomUUID()] }, "tagged.0"],
      [{ content: "hi", tagged: [agent.id, "nope"] }, "tagged.1"],
      [{ content: "hi", extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const res = await call("POST", `/api/guilds/${guildId}/chat`, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    expect((await call("GET", `/api/guilds/${guildId}/chat`, { token })).json.data).toEqual([]);
    expect((await call("GET", `/api/guilds/${guildId}/chat?after_seq=1&before_seq=5`, { token })).status).toBe(422);
    const stranger = await seedGuild("Other org");
    expect((await call("POST", `/api/guilds/${guildId}/chat`, { token: stranger.token, body: { content: "hi" } })).status).toBe(404);
    expect((await call("GET", `/api/guilds/${guildId}/chat`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", `/api/guilds/${guildId}/events`, { token: stranger.token })).status).toBe(404);
    expect(await groupRuns(token, agent.id)).toEqual([]);
  });

  it("GROUP-002: an agent id tagged in capitals tags that agent, stored in its one canonical form", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { name: "Shouted" });
    await script(agent.model, [{ content: "heard" }]);
    const res = await call("POST", `/api/guilds/${guildId}/chat`, { token, body: { content: "hi", tagged: [agent.id.toUpperCase()] } });
    expect(res.status).toBe(201);
    expect(res.json.tagged).toEqual([agent.id]);
    await untilDelivered(token, agent.id, 1);
  });

  it("GROUP-011: the chat reads in seq order: the latest page, after_seq and before_seq, with has_more", async () => {
    const { token, guildId } = await seedGuild();
    await seedChatRows(guildId, 7);
    const latest = (await call("GET", `/api/guilds/${guildId}/chat?limit=3`, { token })).json;
    expect(latest.data.map((m: any) => m.seq)).toEqual([5, 6, 7]);
    expect(latest.has_more).toBe(true);
    const before = (await call("GET", `/api/guilds/${guildId}/chat?limit=3&before_seq=5`, { token })).json;
    expect(before.data.map((m: any) => m.seq)).toEqual([2, 3, 4]);
    const after = (await call("GET", `/api/guilds/${guildId}/chat?after_seq=5`, { token })).json;
    expect(after).toMatchObject({ has_more: false });
    expect(after.data.map((m: any) => m.seq)).toEqual([6, 7]);
    // The next post takes the next seq after what is stored.
    expect((await postChat(token, guildId, "eight")).seq).toBe(8);
  });
});
