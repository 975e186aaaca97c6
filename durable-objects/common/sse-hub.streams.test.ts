import { describe, expect, it } from "vitest";
import { newAgent, script, settled } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { collectEvents, collectStream } from "../../test/workerd/sse";

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
    const runEvents = collectEvents(
      token,
      runA.id,
      (events) => text(events).includes("WATCHED-REPLY") && events.some((e) => e.event === "status" && e.data.generating === false && e.data.generation === 1),
    );
    await new Promise((r) => setTimeout(r, 100));
    await call("POST", `/api/runs/${runB.id}/messages`, { token, body: { content: "NEIGHBOUR-ASK" } });
    await settled(token, runB.id);
    await call("POST", `/api/runs/${runA.id}/messages`, { token, body: { content: "WATCHED-ASK" } });
    const seen = await runEvents;
    expect(text(seen)).toContain("WATCHED-ASK");
    expect(text(seen)).not.toContain("NEIGHBOUR");
    expect(seen.filter((e) => e.data?.run_id).every((e) => e.data.run_id === runA.id)).toBe(true);

    const guildEvents = collectStream(token, `/api/guilds/${guildId}/events`, (events) => text(events).includes("HERE-POST"));
    await new Promise((r) => setTimeout(r, 100));
    expect((await call("POST", `/api/guilds/${otherGuild}/chat`, { token, body: { content: "THERE-POST" } })).status).toBe(201);
    expect((await call("POST", `/api/guilds/${guildId}/chat`, { token, body: { content: "HERE-POST" } })).status).toBe(201);
    const guildSeen = await guildEvents;
    expect(text(guildSeen)).toContain("HERE-POST");
    expect(text(guildSeen)).not.toContain("THERE-POST");
  });
});
