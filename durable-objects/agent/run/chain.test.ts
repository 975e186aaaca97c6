import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../bindings/env";
import { openDatabase } from "../../../core/db/client";
import { groupCursors, messages, runs } from "../../../core/db/schema";
import { EVENT_STREAMS } from "../../../core/events/streams";
import { HANDOFF_TOOL_RESULT, handoffRequest, NO_HANDOFF_NOTE } from "../../../core/runs/chain";
import { modelRequests, newAgent, objectOf, rows, script, scriptHeld, settled, toolCall, untilGenerating } from "../../../test/workerd/agents";
import { postChat } from "../../../test/workerd/group-chat";
import { call, seedGuild } from "../../../test/workerd/seed";
import { collectEvents, eventMisfits, type SseEvent } from "../../../test/workerd/sse";
import type { AgentObject } from "../agent-object";

type Run = {
  id: string;
  kind: string;
  status: string;
  metadata: Record<string, any>;
  errors: Array<{ code: string }>;
  chain?: any;
  continued_by_run_id?: string;
};

const words = (n: number) => "word ".repeat(n).trim();
const continuation = (content: string) => JSON.parse(content.slice("Continuation: ".length));

/** The agent's runs, oldest first. */
async function runsOf(token: string, agentId: string): Promise<Run[]> {
  const res = await call("GET", `/api/agents/${agentId}/runs?limit=100`, { token });
  return (res.json.data as Run[]).reverse();
}

/** Waits until the agent has `count` runs and generates no more; each run as the API shows it. */
async function chainSettled(token: string, agentId: string, count: number, timeoutMs = 20_000): Promise<Run[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await runsOf(token, agentId);
    if (found.length >= count && !(await objectOf(agentId).generationState()).generating) {
      return Promise.all(found.map(async (r) => (await call("GET", `/api/runs/${r.id}`, { token })).json as Run));
    }
    if (Date.now() > deadline) throw new Error(`${found.length} of ${count} runs after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Records every release of the agent's lock and every hand-over, on the object itself. */
async function watchLock(agentId: string) {
  await runInDurableObject(objectOf(agentId), (object: AgentObject) => {
    const seen: string[] = [];
    (object as unknown as { lockLog: string[] }).lockLog = seen;
    const { lock } = object.rooms.context;
    const release = lock.release.bind(lock);
    const handOver = lock.handOver.bind(lock);
    lock.release = (runId) => {
      if (lock.held()?.runId === runId) seen.push(`release ${runId}`);
      return release(runId);
    };
    lock.handOver = (from, to) => {
      seen.push(`hand ${from} -> ${to}`);
      return handOver(from, to);
    };
  });
  return () => runInDurableObject(objectOf(agentId), (object: AgentObject) => [...(object as unknown as { lockLog: string[] }).lockLog]);
}

describe("run chains", () => {
  let token: string;
  let guildId: string;
  /** Prompt tokens of a coding agent's first call on a one-word message: the chain tests size their cap on it. */
  let base: number;
  beforeAll(async () => {
    ({ token, guildId } = await seedGuild());
    const probe = await newAgent(token, guildId, { coding: true });
    const run = (await call("POST", `/api/agents/${probe.id}/runs`, { token, body: { message: "hi" } })).json;
    await settled(token, run.id);
    base = (await rows(token, run.id)).find((r) => r.role === "assistant")!.metadata.projection.prompt_tokens_counted;
  }, 30_000);

  /** A cap at which a fresh coding run starts near half of max_input_tokens. */
  const capAtHalf = () => Math.max(1000, Math.ceil(base * 2));

  it("CHAIN-002..012 / CHAIN-020 / CHAIN-022 / SSE-004 / EXACT-027: a coding run crosses 70%, hands off in one text-only call, and its continuation opens with the Continuation payload while the lock never frees", async () => {
    const cap = capAtHalf();
    const agent = await newAgent(token, guildId, { coding: true, max_input_tokens: cap });
    const stopLog = await watchLock(agent.id);
    const handoff = "## Goal\nShip the parser\n## Done\nlexer\n## Decided\nno regex\n## Remaining\ntests\n## Files\nsrc/parse.ts:12";
    await script(agent.model, [
      // Under 70% here; this reply's own text takes the next call over it.
      { content: words(Math.ceil(cap * 0.3)), tool_calls: [toolCall("note_write", { title: "first", body: "kept" })] },
      // The hand-off reply still calls a tool: it gets the hand-off error and is not run.
      { content: handoff, tool_calls: [toolCall("note_write", { title: "never-written", body: "x" })], delay_ms: 300 },
      { content: "continuing from the hand-off" },
    ]);
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "build it" } })).json;
    const events = collectEvents(token, first.id, (seen) => seen.some((e) => e.event === "run.continued"));
    const [old, next] = await chainSettled(token, agent.id, 2);
    expect(old!.id).toBe(first.id);

    // The old run: the hand-off row, one reply, its tool call answered without running (CHAIN-002..004).
    const oldRows = await rows(token, first.id);
    const request = oldRows.find((r) => r.metadata.source === "handoff" && r.role === "user")!;
    expect(request.payload.content).toBe(handoffRequest(1));
    const afterRequest = oldRows.filter((r) => r.seq > request.seq);
    expect(afterRequest.map((r) => r.role)).toEqual(["assistant", "tool"]);
    expect(afterRequest[1]!.payload.content).toBe(HANDOFF_TOOL_RESULT);
    const requests = await modelRequests(agent.model);
    expect(requests).toHaveLength(3);
    // The hand-off call offers the snapshotted tools and ends with the request (CHAIN-003).
    expect(requests[1]!.body.tools.map((t: any) => t.function.name)).toEqual(requests[0]!.body.tools.map((t: any) => t.function.name));
    expect(requests[1]!.body.messages.at(-1)).toEqual({ role: "user", content: handoffRequest(1) });
    expect(afterRequest[0]!.metadata.projection.prompt_tokens_counted).toBeGreaterThanOrEqual(0.7 * cap);
    expect(oldRows.find((r) => r.role === "assistant")!.metadata.projection.prompt_tokens_counted).toBeLessThan(0.7 * cap);

    // CHAIN-022: the run's own rows stay where they are, every one of them; nothing moved or compacted.
    expect(oldRows.map((r) => r.role)).toEqual(["system", "user", "assistant", "tool", "user", "assistant", "tool"]);
    expect(oldRows.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // CHAIN-008 / CHAIN-020: the old run completed and names its continuation.
    expect(old).toMatchObject({ status: "completed", continued_by_run_id: next!.id, errors: [] });
    expect(old!.chain).toBeUndefined();
    // CHAIN-006 / CHAIN-009 / EXACT-027: same agent and kind, a fresh system row, one continuation message.
    expect(next).toMatchObject({ kind: "direct", status: "active", chain: { root_run_id: first.id, index: 2, previous_run_id: first.id } });
    const nextRows = await rows(token, next!.id);
    expect(nextRows.map((r) => r.role)).toEqual(["system", "user", "assistant"]);
    // A fresh system prompt: State lists the note the first run wrote, which the first run's did not.
    expect(nextRows[0]!.payload.content).toContain("first");
    expect(oldRows[0]!.payload.content).not.toContain("first");
    // The hand-off reply's note_write was answered, not run.
    expect(nextRows[0]!.payload.content).not.toContain("never-written");
    expect(nextRows[1]!.metadata.source).toBe("continuation");
    expect(continuation(nextRows[1]!.payload.content)).toEqual({ previous_run_id: first.id, handoff });
    expect(nextRows[2]!.payload.content).toBe("continuing from the hand-off");
    expect(requests[2]!.body.messages).toHaveLength(2);

    // CHAIN-010: the old run's lock went to the continuation, never released in between.
    expect(await stopLog()).toEqual([`hand ${first.id} -> ${next!.id}`, `release ${next!.id}`]);
    // CHAIN-011 / SSE-004: the old run's subscribers hear where it went.
    const continued = (await events).find((e) => e.event === "run.continued");
    expect(continued?.data).toMatchObject({ run_id: next!.id, previous_run_id: first.id, root_run_id: first.id, index: 2 });
    expect(eventMisfits(await events, EVENT_STREAMS.run)).toEqual([]);
  });

  it("CHAIN-007: a hand-off reply without text continues with handoff null and a note", async () => {
    const cap = capAtHalf();
    const agent = await newAgent(token, guildId, { coding: true, max_input_tokens: cap });
    await script(agent.model, [{ tool_calls: [toolCall("note_list", {})] }, { content: "picked up" }]);
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: words(Math.ceil(cap * 0.3)) } })).json;
    const [, next] = await chainSettled(token, agent.id, 2);
    const opened = (await rows(token, next!.id))[1]!;
    expect(continuation(opened.payload.content)).toEqual({ previous_run_id: first.id, handoff: null, note: NO_HANDOFF_NOTE });
  });

  it("CHAIN-001 / GEN-023: a run without coding keeps the hard cap and never hands off", async () => {
    const cap = capAtHalf();
    const agent = await newAgent(token, guildId, { max_input_tokens: cap });
    await script(agent.model, [{ content: "plain answer" }]);
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: words(Math.ceil(cap * 0.3)) } })).json;
    const after = await settled(token, first.id);
    expect(after).toMatchObject({ status: "active", errors: [] });
    expect((await rows(token, first.id)).map((r) => r.metadata.source)).not.toContain("handoff");
    expect(await runsOf(token, agent.id)).toHaveLength(1);
  });

  it("CHAIN-005: when the hand-off request leaves the prompt above max_input_tokens, the run records generation.max_input_tokens and no continuation opens", async () => {
    const cap = capAtHalf();
    const agent = await newAgent(token, guildId, { coding: true, max_input_tokens: cap });
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: words(cap) } })).json;
    const after = await settled(token, first.id);
    expect(after.status).toBe("completed");
    expect(after.errors.map((e: { code: string }) => e.code)).toEqual(["generation.max_input_tokens"]);
    expect((await rows(token, first.id)).map((r) => r.metadata.source)).toEqual(["system", "operator", "handoff"]);
    expect(await modelRequests(agent.model)).toHaveLength(0);
    expect(await runsOf(token, agent.id)).toHaveLength(1);
  });

  it("CHAIN-017 / CHAIN-018 / CHAIN-021 / CANCEL-016 / OP-CHAIN-3 / OP-CHAIN-5 / OP-CHAIN-6: the fifth run records generation.max_chain, and messages or resume on an earlier run name the latest", async () => {
    const cap = capAtHalf();
    const agent = await newAgent(token, guildId, { coding: true, max_input_tokens: cap });
    // Every run starts past 70%: each one's only call is its hand-off, whose long text fills the next.
    const longHandoff = { content: `## Goal\n${words(Math.ceil(cap * 0.3))}` };
    await script(agent.model, [{ ...longHandoff, delay_ms: 1000 }, longHandoff, longHandoff, longHandoff, { content: "a sixth call must not happen" }]);
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: words(Math.ceil(cap * 0.3)) } })).json;
    const continued = (seen: SseEvent[]) => seen.filter((e) => e.event === "run.continued");
    const atRoot = collectEvents(token, first.id, (seen) => continued(seen).length >= 4, { timeoutMs: 20_000 });
    const chain = await chainSettled(token, agent.id, 5);
    // OP-CHAIN-3: the root's subscribers hear of every continuation, not only the first.
    expect(continued(await atRoot).map((e) => e.data.run_id)).toEqual(chain.slice(1).map((r) => r.id));
    expect(chain).toHaveLength(5);
    expect(chain.map((r) => r.chain?.index ?? 1)).toEqual([1, 2, 3, 4, 5]);
    expect(chain.slice(1).every((r) => r.chain.root_run_id === first.id)).toBe(true);
    const last = chain[4]!;
    expect(last).toMatchObject({ status: "completed" });
    expect(last.errors.map((e) => e.code)).toEqual(["generation.max_chain"]);
    expect(last.continued_by_run_id).toBeUndefined();
    // No hand-off row in the fifth run, and no sixth call (OP-CHAIN-5).
    expect((await rows(token, last.id)).map((r) => r.metadata.source)).toEqual(["system", "continuation"]);
    expect(await modelRequests(agent.model)).toHaveLength(4);

    const message = await call("POST", `/api/runs/${first.id}/messages`, { token, body: { content: "more" } });
    expect(message.status).toBe(409);
    expect(message.json.error).toMatchObject({ code: "run.continued", details: { latest_run_id: last.id } });
    const resume = await call("POST", `/api/runs/${chain[2]!.id}/resume`, { token });
    expect(resume.status).toBe(409);
    expect(resume.json.error).toMatchObject({ code: "run.continued", details: { latest_run_id: last.id } });
    const resumeLast = await call("POST", `/api/runs/${last.id}/resume`, { token });
    expect(resumeLast.json.error).toMatchObject({ code: "run.not_resumable", details: { reason: "generation.max_chain" } });
  });

  it("CHAIN-019 / CANCEL-017: cancelling the running continuation stops the chain", async () => {
    const cap = capAtHalf();
    const agent = await newAgent(token, guildId, { coding: true, max_input_tokens: cap });
    const longHandoff = `## Goal\n${words(Math.ceil(cap * 0.3))}`;
    // The continuation starts past 70%: its first call is a hand-off, held at the model, that the operator cancels.
    await script(agent.model, [{ content: longHandoff }]);
    await scriptHeld(agent.model, [{ content: longHandoff }]);
    await script(agent.model, [{ content: "never asked" }]);
    await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: words(Math.ceil(cap * 0.3)) } });
    let runs: Run[] = [];
    for (let i = 0; i < 200 && runs.length < 2; i++) {
      runs = await runsOf(token, agent.id);
      if (runs.length < 2) await new Promise((r) => setTimeout(r, 25));
    }
    const next = runs[1]!;
    await untilGenerating(token, next.id);
    await vi.waitFor(async () => expect(await modelRequests(agent.model)).toHaveLength(2));
    const cancelled = await call("POST", `/api/runs/${next.id}/cancel`, { token });
    expect(cancelled.status).toBe(200);
    const after = await chainSettled(token, agent.id, 2);
    expect(after).toHaveLength(2);
    expect(after[1]!.errors.map((e) => e.code)).toEqual(["generation.cancelled"]);
    // A direct continuation is a direct run: it stays active and takes messages (OP-CHAIN-8).
    expect(after[1]!.status).toBe("active");
    expect(after[1]!.continued_by_run_id).toBeUndefined();
  });

  it("CHAIN-013 / SCHED-022 / CHAIN-016 / GROUP-013: a schedule continuation keeps schedule_id and instruction_hash; the Memory step happens in the last run only", async () => {
    const cap = capAtHalf();
    const agent = await newAgent(token, guildId, { coding: true, memory: true, max_input_tokens: cap });
    const schedule = (
      await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: { description: "Nightly", instruction: "Check the build.", cron: "0 0 1 1 *" } })
    ).json;
    await script(agent.model, [
      // A schedule run offers fewer tools than a direct one: it starts lower, so its reply is longer.
      { content: words(Math.ceil(cap * 0.5)), tool_calls: [toolCall("note_list", {})] },
      { content: "## Goal\ncheck the build" },
      { content: "all green" },
      { content: "still no memory" },
    ]);
    const stub = objectOf(agent.id);
    const fireAt = Date.parse(schedule.next_run_at) + 1000;
    await runInDurableObject(stub, (object: AgentObject) => {
      object.now = () => fireAt;
    });
    await runDurableObjectAlarm(stub);
    const [first, next] = await chainSettled(token, agent.id, 2);
    expect(first).toMatchObject({ kind: "schedule", status: "completed", continued_by_run_id: next!.id });
    expect(next).toMatchObject({ kind: "schedule", status: "completed", schedule_id: schedule.id, instruction_hash: first!.metadata.instruction_hash });
    expect(next!.metadata.instruction_hash).toEqual(expect.any(String));
    // Memory: no reminder and no memory_skipped in the run that handed off; both in the last.
    expect((await rows(token, first!.id)).map((r) => r.metadata.source)).not.toContain("memory_reminder");
    expect(first!.metadata.memory_skipped).toBeUndefined();
    expect((await rows(token, next!.id)).map((r) => r.metadata.source)).toContain("memory_reminder");
    expect(next!.metadata.memory_skipped).toBe(true);
  });

  it("CHAIN-014 / CHAIN-015 / GROUP-012 / OP-CHAIN-4: a group continuation keeps the delivery's range, and the cursor advances only at the chain's end", async () => {
    const cap = capAtHalf() + 600;
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId, { coding: true, max_input_tokens: cap, name: "Coder" });
    await script(agent.model, [{ content: words(Math.ceil(cap * 0.35)), tool_calls: [toolCall("note_list", {})] }, { content: "## Goal\nanswer the chat" }]);
    const release = await scriptHeld(agent.model, [{ content: "answered" }]);
    const posted = await postChat(token, guildId, "please fix the build");
    const cursor = async () => {
      const { db, close } = openDatabase(env as unknown as Env);
      try {
        const [row] = await db.select().from(groupCursors).where(eq(groupCursors.agentId, agent.id));
        return row?.deliveredThroughSeq ?? null;
      } finally {
        await close();
      }
    };
    let runs: Run[] = [];
    for (let i = 0; i < 300 && runs.length < 2; i++) {
      runs = await runsOf(token, agent.id);
      if (runs.length < 2) await new Promise((r) => setTimeout(r, 25));
    }
    await untilGenerating(token, runs[1]!.id);
    // Mid-chain: the first run completed at its hand-off, but the delivery is not over.
    expect((await call("GET", `/api/runs/${runs[0]!.id}`, { token })).json.status).toBe("completed");
    expect(await cursor()).toBeLessThan(posted.seq);
    await release();
    const [first, next] = await chainSettled(token, agent.id, 2);
    expect(next).toMatchObject({ kind: "group", status: "completed" });
    expect(next!.metadata.group_chat_through_seq).toBe(posted.seq);
    expect(next!.metadata.group_chat_after_seq).toBe(first!.metadata.group_chat_after_seq);
    expect(await cursor()).toBe(posted.seq);
    expect(await runsOf(token, agent.id)).toHaveLength(2);
    // The continuation's fresh system row still carries the delivery's chat history.
    expect((await rows(token, next!.id))[0]!.payload.content).toContain("please fix the build");
  });

  it("CHAIN-010 / CHAIN-012 (recovery): a continuation written before the object died generates on recovery instead of being lost", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    await script(agent.model, [{ content: "picked up after the restart" }]);
    const nextId = await runInDurableObject(objectOf(agent.id), async (object: AgentObject) => {
      const { openContinuation } = await import("./chain");
      const session = (await object.rooms.context.sessions.get(first.id))!;
      const next = crypto.randomUUID();
      const opened = await object.rooms.context.database.use((db) => openContinuation(db, session, "## Goal\ncarry on", next, new Date()));
      expect(opened).not.toBeNull();
      // The lock as the dead generation left it: still naming the run that handed off, its lease run out.
      expect(object.rooms.context.lock.stored.acquire(first.id, 1, 60_000).ok).toBe(true);
      const realNow = object.now;
      object.now = () => realNow() + 120_000;
      await object.rooms.runs.heartbeat();
      object.now = realNow;
      return next;
    });
    const next = await settled(token, nextId);
    expect(next.errors).toEqual([]);
    expect((await rows(token, nextId)).map((r) => r.role)).toEqual(["system", "user", "assistant"]);
    expect((await rows(token, first.id)).map((r) => r.role)).toEqual(["system"]);
    const old = (await call("GET", `/api/runs/${first.id}`, { token })).json;
    expect(old).toMatchObject({ status: "completed", continued_by_run_id: nextId, errors: [] });
  });

  it("CHAIN-006 / CHAIN-004 (recovery): a hand-off reply committed before the object died still gets its continuation", async () => {
    const agent = await newAgent(token, guildId, { coding: true });
    const first = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const { db, close } = openDatabase(env as unknown as Env);
    try {
      const reply = {
        role: "assistant",
        content: "## Goal\nkeep going",
        tool_calls: [{ id: "c1", type: "function", function: { name: "note_list", arguments: "{}" } }],
      };
      await db.insert(messages).values([
        { runId: first.id, seq: 1, generation: 1, role: "user", payload: { role: "user", content: "work" }, metadata: { source: "operator" }, tokenCount: 3 },
        {
          runId: first.id,
          seq: 2,
          generation: 1,
          role: "user",
          payload: { role: "user", content: handoffRequest(1) },
          metadata: { source: "handoff" },
          tokenCount: 90,
        },
        { runId: first.id, seq: 3, generation: 1, role: "assistant", payload: reply, metadata: { source: "model" }, tokenCount: 20 },
      ]);
      await db.update(runs).set({ generation: 1 }).where(eq(runs.id, first.id));
    } finally {
      await close();
    }
    await script(agent.model, [{ content: "resumed the chain" }]);
    await runInDurableObject(objectOf(agent.id), async (object: AgentObject) => {
      // The object that wrote those rows is gone: its lock names the run, its lease ran out.
      object.rooms.context.sessions.forget((await object.rooms.context.sessions.get(first.id))!);
      expect(object.rooms.context.lock.stored.acquire(first.id, 1, 60_000).ok).toBe(true);
      const realNow = object.now;
      object.now = () => realNow() + 120_000;
      await object.rooms.runs.heartbeat();
      object.now = realNow;
    });
    const [old, next] = await chainSettled(token, agent.id, 2);
    expect(old).toMatchObject({ id: first.id, status: "completed", continued_by_run_id: next!.id, errors: [] });
    const oldRows = await rows(token, first.id);
    expect(oldRows.at(-1)).toMatchObject({ role: "tool", payload: { tool_call_id: "c1", content: HANDOFF_TOOL_RESULT } });
    const nextRows = await rows(token, next!.id);
    expect(continuation(nextRows[1]!.payload.content)).toEqual({ previous_run_id: first.id, handoff: "## Goal\nkeep going" });
    expect(nextRows.at(-1)!.payload.content).toBe("resumed the chain");
  });
});
