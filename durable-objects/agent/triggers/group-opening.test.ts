import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { modelRequests, newAgent, objectOf, rows, script } from "../../../test/workerd/agents";
import { groupRuns, postChat, seedChatRows, untilDelivered } from "../../../test/workerd/group-chat";
import { seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";

/** The selector's model name in the test bindings (vitest.config.ts). */
const SELECTOR_MODEL = "selector-model";

describe("group_chat_history", () => {
  it("GROUP-004: with a selector configured, State holds the 10 rows it picked from the last 40", async () => {
    const { token, guildId } = await seedGuild();
    await seedChatRows(guildId, 30);
    const agent = await newAgent(token, guildId, { name: "Picky" });
    const picked = [2, 4, 6, 8, 10, 12, 14, 16, 18, 31];
    await script(SELECTOR_MODEL, [{ content: JSON.stringify({ seqs: picked }) }]);
    await script(agent.model, [{ content: "ok" }]);
    const posted = await postChat(token, guildId, "what did we decide?");
    const [run] = await untilDelivered(token, agent.id, 1);
    expect(run!.metadata.group_chat_history).toEqual({ source: "selector", seqs: picked });
    const system = (await rows(token, run!.id))[0]!.payload.content as string;
    const history = system.slice(system.indexOf("group_chat_history"));
    expect(history.match(/^- \[\d+\]/gm)).toHaveLength(10);
    expect(history).toContain("[2] operator");
    expect(history).not.toContain("[3] operator");
    expect(history).toContain(`[${posted.seq}] operator`);
    const request = (await modelRequests(SELECTOR_MODEL)).at(-1);
    expect(request!.body.messages[1].content.split("\n")).toHaveLength(31);
  });

  it("GROUP-004 / OP-GROUP-3: a selector answer that is not 10 of the candidates falls back to the last 10, and the run says so", async () => {
    const { token, guildId } = await seedGuild();
    await seedChatRows(guildId, 15);
    const agent = await newAgent(token, guildId, { name: "Fallback" });
    await script(SELECTOR_MODEL, [{ content: JSON.stringify({ seqs: [1, 999] }) }]);
    await script(agent.model, [{ content: "ok" }]);
    await postChat(token, guildId, "anyone?");
    const [run] = await untilDelivered(token, agent.id, 1);
    expect(run!.metadata.group_chat_history).toMatchObject({
      source: "fallback",
      seqs: [7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
      reason: expect.stringContaining("999"),
    });
  });
});

describe("a slow group-history selector", () => {
  it("GROUP-004 / HARDEN-2: the object keeps its database connection while a delivery's opening waits for the selector", async () => {
    const { token, guildId } = await seedGuild();
    await seedChatRows(guildId, 12);
    const agent = await newAgent(token, guildId, { name: "Patient" });
    const picked = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13];
    await script(SELECTOR_MODEL, [{ content: JSON.stringify({ seqs: picked }), delay_ms: 1_500 }]);
    await script(agent.model, [{ content: "read it" }]);
    await postChat(token, guildId, "slow news");
    // The lock is held while the selector thinks; the idle close comes due meanwhile.
    const stub = objectOf(agent.id);
    for (let i = 0; i < 100 && !(await stub.generationState()).generating; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await groupRuns(token, agent.id)).toHaveLength(0);
    await runInDurableObject(stub, (object: AgentObject) => object.rooms.context.database.closeIfIdle());
    const [run] = await untilDelivered(token, agent.id, 1);
    expect(run!.metadata.group_chat_history).toEqual({ source: "selector", seqs: picked });
    expect(run!.errors).toEqual([]);
  });
});
