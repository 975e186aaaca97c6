import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_WAKE_DEPTH } from "../../core/group/wake";
import type { AgentObject } from "../../durable-objects/agent/agent-object";
import { modelRequests, newAgent, objectOf, rows, script, settled, toolCall, untilGenerating } from "../../test/workerd/agents";
import { groupRuns, postChat, seedChatRows, untilDelivered } from "../../test/workerd/group-chat";
import { call, seedGuild } from "../../test/workerd/seed";
import { collectStream } from "../../test/workerd/sse";

/** The selector's model name in the test bindings (vitest.config.ts). */
const SELECTOR_MODEL = "selector-model";

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
    await script(agent.model, [{ content: "first", delay_ms: 400 }, { content: "second" }]);
    const first = await postChat(token, guildId, "one");
    await untilReading(token, agent.id);
    const second = await postChat(token, guildId, "two");
    const third = await postChat(token, guildId, "three");
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
    await script(agent.model, [{ content: "slow direct answer", delay_ms: 800 }, { content: "read the chat" }]);
    const direct = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "work" } })).json;
    await untilGenerating(token, direct.id);
    const posted = await postChat(token, guildId, "while you work");
    await new Promise((r) => setTimeout(r, 200));
    // Still busy: the delivery waits, nothing is refused or lost.
    expect(await groupRuns(token, agent.id)).toHaveLength(0);
    expect((await objectOf(agent.id).deadlines()).map((d) => d.name)).toContain("group.delivery");
    const [run] = await untilDelivered(token, agent.id, 1);
    expect(run!.metadata.group_chat_through_seq).toBe(posted.seq);
    expect(await groupRuns(token, agent.id)).toHaveLength(1);
    expect((await settled(token, direct.id)).status).toBe("active");
  });

  it("GROUP-010 / SCHED-008: a routine that comes due while the agent reads the group chat stays due, then fires after the delivery", async () => {
    const agent = await newAgent(token, guildId, { name: "Routine" });
    await script(agent.model, [{ content: "reading slowly", delay_ms: 1_000 }, { content: "routine done" }]);
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
    await untilDelivered(token, agent.id, 1);
    await runDurableObjectAlarm(stub);
    const [fired] = (await call("GET", `/api/schedules/${routine.id}/runs`, { token })).json.data;
    expect((await settled(token, fired.id)).kind).toBe("schedule");
  });

  it("OP-CANCEL-2 / GROUP-011: cancelling a delivery completes its run and advances the cursor; the next post starts after it", async () => {
    const agent = await newAgent(token, guildId, { name: "Cancelled" });
    await script(agent.model, [{ content: "a very long read", delay_ms: 5_000 }, { content: "the next one" }]);
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
    const again = (await call("GET", `/api/guilds/${guildId}/chat?limit=200`, { token })).json.data as Array<{ depth: number; author_kind: string }>;
    expect(again.length).toBeGreaterThan(chat.length + 1);
    expect(again.length).toBeLessThanOrEqual(2 * chat.length);
  });
});

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
    const live = collectStream(token, path, (e) => e.filter((x) => x.event === "delivery").length === 2, { afterSeq: first.seq });
    await new Promise((r) => setTimeout(r, 100));
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

/** Waits until the agent reads its first delivery: the run is written (the lock comes first) and generates. */
async function untilReading(token: string, agentId: string) {
  for (let i = 0; i < 200 && (await groupRuns(token, agentId)).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  const [run] = await groupRuns(token, agentId);
  await untilGenerating(token, run!.id);
}

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
