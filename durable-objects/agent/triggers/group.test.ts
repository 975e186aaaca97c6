import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_WAKE_DEPTH } from "../../../core/group/wake";
import { modelRequests, newAgent, objectOf, rows, script, scriptHeld, settled, toolCall, untilGenerating } from "../../../test/workerd/agents";
import { groupRuns, postChat, untilDelivered, untilReading } from "../../../test/workerd/group-chat";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";

describe("group chat", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GROUP-001 / GROUP-002 / GROUP-003 / RUN-005 / RUN-020: an operator post wakes every agent once with the system row, one Group Chat info row and the history in State; the run completes and refuses messages", async () => {
    const { token, guildId } = await seedGuild();
    const scout = await newAgent(token, guildId, { name: "Scout" });
    const other = await newAgent(token, guildId, { name: "Builder" });
    await script(scout.model, [{ content: "on it" }]);
    await script(other.model, [{ content: "noted" }]);
    const posted = await postChat(token, guildId, "hello @scout, please look");
    expect(posted.tagged).toEqual([scout.id]);
    const [scoutRun] = await untilDelivered(token, scout.id, 1);
    const [otherRun] = await untilDelivered(token, other.id, 1);
    for (const [run, tagged] of [
      [scoutRun!, true],
      [otherRun!, false],
    ] as const) {
      expect(run).toMatchObject({ kind: "group", status: "completed", metadata: { group_chat_through_seq: posted.seq } });
      const transcript = await rows(token, run.id);
      expect(transcript.map((r) => r.role)).toEqual(["system", "user", "assistant"]);
      expect(transcript[0]!.payload.content).toContain(`group_chat_history (public rows through seq ${posted.seq}`);
      expect(transcript[0]!.payload.content).toContain(`[${posted.seq}] operator (`);
      const wake = transcript[1]!;
      expect(wake.metadata).toMatchObject({ source: "group", group_chat_through_seq: posted.seq });
      expect(wake.payload.content.startsWith("Group Chat info: ")).toBe(true);
      const info = JSON.parse(wake.payload.content.slice("Group Chat info: ".length));
      expect(info).toEqual({
        latestMessage: { seq: posted.seq, author: "operator", text: "hello @scout, please look", at: expect.any(String) },
        youWereTagged: tagged,
      });
      const refused = await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "more?" } });
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe("run.not_accepting_messages");
    }
    // Resumed, the run takes messages and stays active (CANCEL-013).
    expect((await call("POST", `/api/runs/${scoutRun!.id}/resume`, { token })).status).toBe(200);
    await script(scout.model, [{ content: "sure" }]);
    expect((await call("POST", `/api/runs/${scoutRun!.id}/messages`, { token, body: { content: "more?" } })).status).toBe(202);
  });

  it("GROUP-011: one delivery covers every row queued before it, and the next delivery starts after the cursor", async () => {
    const agent = await newAgent(token, guildId, { name: "Cursor" });
    // The first delivery's reply is held until both later posts are in: they arrive while it runs.
    const release = await scriptHeld(agent.model, [{ content: "first" }]);
    await script(agent.model, [{ content: "second" }]);
    const first = await postChat(token, guildId, "one");
    await untilReading(token, agent.id);
    const second = await postChat(token, guildId, "two");
    const third = await postChat(token, guildId, "three");
    await release();
    const runs = await untilDelivered(token, agent.id, 2);
    expect(runs.map((r) => r.metadata.group_chat_through_seq)).toEqual([first.seq, third.seq]);
    expect(runs[1]!.metadata.group_chat_after_seq).toBe(first.seq);
    const wake = JSON.parse((await rows(token, runs[1]!.id))[1]!.payload.content.slice("Group Chat info: ".length));
    expect(wake.latestMessage).toMatchObject({ seq: third.seq, text: "three" });
    expect(second.seq).toBe(first.seq + 1);
    expect(await modelRequests(agent.model)).toHaveLength(2);
  });

  it("GROUP-009 / GROUP-010 / GEN-004: a delivery waits for the agent's lock and arrives once when the direct generation ends", async () => {
    const agent = await newAgent(token, guildId, { name: "Busy" });
    const release = await scriptHeld(agent.model, [{ content: "slow direct answer" }]);
    await script(agent.model, [{ content: "read the chat" }]);
    const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "work" } })).json;
    await untilGenerating(token, direct.id);
    const posted = await postChat(token, guildId, "while you work");
    // Still busy: the delivery waits as a deadline, nothing is refused or lost.
    await vi.waitFor(async () => expect((await objectOf(agent.id).deadlines()).map((d) => d.name)).toContain("group.delivery"));
    expect(await groupRuns(token, agent.id)).toHaveLength(0);
    await release();
    const [run] = await untilDelivered(token, agent.id, 1);
    expect(run!.metadata.group_chat_through_seq).toBe(posted.seq);
    expect(await groupRuns(token, agent.id)).toHaveLength(1);
    expect((await settled(token, direct.id)).status).toBe("active");
  });

  it("GROUP-010 / SCHED-008: a routine that comes due while the agent reads the group chat stays due, then fires after the delivery", async () => {
    const agent = await newAgent(token, guildId, { name: "Routine" });
    const release = await scriptHeld(agent.model, [{ content: "reading slowly" }]);
    await script(agent.model, [{ content: "routine done" }]);
    const routine = (
      await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: { description: "Yearly", instruction: "Reflect.", cron: "0 0 1 1 *" } })
    ).json;
    await postChat(token, guildId, "read this");
    await untilReading(token, agent.id);
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, (object: AgentObject) => {
      object.now = () => Date.parse(routine.next_run_at) + 100;
    });
    await runDurableObjectAlarm(stub);
    expect((await call("GET", `/api/schedules/${routine.id}/runs`, { token })).json.data).toEqual([]);
    expect((await call("GET", `/api/schedules/${routine.id}`, { token })).json.next_run_at).toBe(routine.next_run_at);
    await release();
    await untilDelivered(token, agent.id, 1);
    await runDurableObjectAlarm(stub);
    const [fired] = (await call("GET", `/api/schedules/${routine.id}/runs`, { token })).json.data;
    expect((await settled(token, fired.id)).kind).toBe("schedule");
  });

  it("OP-CANCEL-2 / GROUP-011: cancelling a delivery completes its run and advances the cursor; the next post starts after it", async () => {
    const agent = await newAgent(token, guildId, { name: "Cancelled" });
    // Held, never released: only the cancel ends it.
    await scriptHeld(agent.model, [{ content: "a very long read" }]);
    await script(agent.model, [{ content: "the next one" }]);
    const first = await postChat(token, guildId, "cancel me");
    await untilReading(token, agent.id);
    const [reading] = await groupRuns(token, agent.id);
    expect((await call("POST", `/api/runs/${reading!.id}/cancel`, { token })).status).toBe(200);
    const cancelled = await settled(token, reading!.id);
    expect(cancelled.status).toBe("completed");
    expect(cancelled.errors.map((e: { code: string }) => e.code)).toEqual(["generation.cancelled"]);
    const second = await postChat(token, guildId, "after the cancel");
    const runs = await untilDelivered(token, agent.id, 2);
    expect(runs[1]!.metadata).toMatchObject({ group_chat_after_seq: first.seq, group_chat_through_seq: second.seq });
  });

  it("GROUP-015 / GROUP-016: group_post posts publicly as the agent, the run's tool trace stays private, and a group run offers group_post and the schedule tools", async () => {
    const { token, guildId } = await seedGuild();
    const poster = await newAgent(token, guildId, { name: "Poster" });
    const mute = await newAgent(token, guildId, { name: "Mute", group_post: false });
    await script(poster.model, [
      { tool_calls: [toolCall("note_write", { title: "private", body: "not for the group" }), toolCall("group_post", { content: "Done, @Mute take a look" })] },
      { content: "posted" },
    ]);
    await script(mute.model, [{ content: "ok" }, { content: "seen" }]);
    await postChat(token, guildId, "status please");
    const [run] = await untilDelivered(token, poster.id, 1);
    expect(run!.snapshot.tools).toEqual(
      expect.arrayContaining(["group_post", "schedule_create", "schedule_list", "schedule_update", "schedule_pause", "schedule_resume", "schedule_delete"]),
    );
    expect(run!.snapshot.tools).not.toContain("secret_request");
    const chat = (await call("GET", `/api/guilds/${guildId}/chat`, { token })).json.data;
    expect(chat.map((m: any) => [m.author_kind, m.author_name, m.content])).toEqual([
      ["operator", "operator", "status please"],
      ["agent", "Poster", "Done, @Mute take a look"],
    ]);
    expect(chat[1]).toMatchObject({ author_agent_id: poster.id, tagged: [mute.id], depth: 1 });
    expect(JSON.stringify(chat)).not.toContain("not for the group");
    const tool = (await rows(token, run!.id)).find((r) => r.metadata.tool_name === "group_post")!;
    expect(tool.payload.content).toContain(`Posted to the group chat as seq ${chat[1].seq}. Tagged: Mute.`);
    // The mute agent was woken by both rows (tagged in the second), but is not offered group_post.
    const muteRuns = await untilDelivered(token, mute.id, 1);
    expect(muteRuns[0]!.snapshot.tools).not.toContain("group_post");
    const last = muteRuns.at(-1)!;
    expect(last.metadata.group_chat_through_seq).toBe(chat[1].seq);
    expect(JSON.parse((await rows(token, last.id))[1]!.payload.content.slice("Group Chat info: ".length)).youWereTagged).toBe(true);
  });

  it("GROUP-011 (ping-pong guard): two agents that always reply in the group stop after a fixed depth; an operator post starts a new exchange", async () => {
    const { token, guildId } = await seedGuild();
    const chatty = [await newAgent(token, guildId, { name: "Ping" }), await newAgent(token, guildId, { name: "Pong" })];
    const replies = Array.from({ length: 12 }, (_, i) => [{ tool_calls: [toolCall("group_post", { content: `reply ${i}` })] }, { content: "sent" }]).flat();
    for (const agent of chatty) await script(agent.model, replies);
    await postChat(token, guildId, "talk among yourselves");
    await waitQuiet(
      token,
      guildId,
      chatty.map((a) => a.id),
    );
    const chat = (await call("GET", `/api/guilds/${guildId}/chat`, { token })).json.data as Array<{ depth: number; author_kind: string }>;
    const posts = chat.filter((m) => m.author_kind === "agent");
    // Without the guard they would use all 24 scripted replies; with it, depth stops at MAX_WAKE_DEPTH + 1.
    expect(Math.max(...posts.map((m) => m.depth))).toBe(MAX_WAKE_DEPTH + 1);
    expect(posts.length).toBeLessThanOrEqual(2 * (MAX_WAKE_DEPTH + 1));
    const used = (await Promise.all(chatty.map((a) => modelRequests(a.model)))).map((r) => r.length);
    expect(used.reduce((a, b) => a + b)).toBe(posts.length * 2);
    // A new operator post opens a new, equally bounded exchange.
    await postChat(token, guildId, "one more round");
    await waitQuiet(
      token,
      guildId,
      chatty.map((a) => a.id),
    );
    // How many replies an exchange takes varies (one delivery may cover both the operator's post and the
    // other agent's reply), so the second exchange is judged by the same bound, not by the first one's count.
    const again = (await call("GET", `/api/guilds/${guildId}/chat?limit=200`, { token })).json.data as Array<{ depth: number; author_kind: string }>;
    const second = again.slice(chat.length);
    const secondPosts = second.filter((m) => m.author_kind === "agent");
    expect(second.filter((m) => m.author_kind === "operator")).toHaveLength(1);
    expect(secondPosts.length).toBeGreaterThan(0);
    expect(Math.max(...secondPosts.map((m) => m.depth))).toBe(MAX_WAKE_DEPTH + 1);
    expect(secondPosts.length).toBeLessThanOrEqual(2 * (MAX_WAKE_DEPTH + 1));
  });
});

/** Waits until none of the agents generates or has a delivery queued, twice in a row. */
async function waitQuiet(token: string, guildId: string, agentIds: string[]) {
  let quiet = 0;
  for (let i = 0; i < 400 && quiet < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const states = await Promise.all(
      agentIds.map(
        async (id) => (await objectOf(id).generationState()).generating || (await objectOf(id).deadlines()).some((d) => d.name === "group.delivery"),
      ),
    );
    quiet = states.some(Boolean) ? 0 : quiet + 1;
  }
  expect(quiet, `guild ${guildId} never went quiet`).toBe(3);
  void token;
}
