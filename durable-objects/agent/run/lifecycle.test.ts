import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../bindings/env";
import { newAgent, objectOf, rows, script, scriptHeld, settled } from "../../../test/workerd/agents";
import { postChat, untilDelivered } from "../../../test/workerd/group-chat";
import { call, seedGuild } from "../../../test/workerd/seed";
import { IdleConnection } from "../../common/idle-connection";
import type { AgentObject } from "../agent-object";
import { HEARTBEAT } from "../state/generation-lock";
import { StoredLock } from "../state/stored-lock";

const ROUNDS = 3;

type Reply = { status: number; json: any };

/** Exactly one request got `accepted`; every other one is 409 agent.busy naming the busy run. */
function expectOneWinner(replies: Reply[], accepted: number, busyRunId: (winner: Reply) => string) {
  expect(
    replies.filter((r) => r.status >= 500),
    JSON.stringify(replies.filter((r) => r.status >= 500)),
  ).toEqual([]);
  const winners = replies.filter((r) => r.status === accepted);
  expect(winners, JSON.stringify(replies.map((r) => [r.status, r.json?.error?.code]))).toHaveLength(1);
  const losers = replies.filter((r) => r.status !== accepted);
  for (const loser of losers) {
    expect(loser.status).toBe(409);
    expect(loser.json.error.code).toBe("agent.busy");
    expect(loser.json.error.details.run_id).toBe(busyRunId(winners[0]!));
  }
}

/** The run's transcript is gap-free from seq 0 and no generation was falsely interrupted. */
async function expectWholeRun(token: string, runId: string) {
  const run = await settled(token, runId);
  expect(run.errors.map((e: { code: string }) => e.code)).not.toContain("generation.interrupted");
  const transcript = await rows(token, runId);
  expect(transcript.map((r) => r.seq)).toEqual(transcript.map((_, i) => i));
  return transcript;
}

describe("the generation lock under truly concurrent requests", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GEN-002 / GEN-003: 20 messages at once across two runs of one agent: one accepted, 19 busy, every run usable after", async () => {
    const agent = await newAgent(token, guildId);
    const runs = await Promise.all([0, 1].map(async () => (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json.id as string));
    for (let round = 0; round < ROUNDS; round++) {
      const release = await scriptHeld(agent.model, [{ content: `round ${round}` }]);
      const targets = Array.from({ length: 20 }, (_, i) => runs[i % 2]!);
      const replies = await Promise.all(targets.map((runId, i) => call("POST", `/api/runs/${runId}/messages`, { token, body: { content: `m${round}-${i}` } })));
      await release();
      const winner = targets[replies.findIndex((r) => r.status === 202)];
      expectOneWinner(replies, 202, () => winner!);
      for (const runId of runs) await expectWholeRun(token, runId);
    }
    // Each accepted message is one user row with its reply; nothing else was written.
    const all = (await Promise.all(runs.map((id) => rows(token, id)))).flat();
    expect(all.filter((r) => r.role === "user")).toHaveLength(ROUNDS);
    expect(all.filter((r) => r.role === "assistant")).toHaveLength(ROUNDS);
  });

  it("GEN-002 / GEN-003: 20 messages at once to one run: one accepted, the rest busy, the run usable after", async () => {
    const agent = await newAgent(token, guildId);
    const runId = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json.id as string;
    for (let round = 0; round < ROUNDS; round++) {
      // The model answers only once all 20 are answered: they arrive while the winner generates, however loaded the machine.
      const release = await scriptHeld(agent.model, [{ content: `round ${round}` }]);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call("POST", `/api/runs/${runId}/messages`, { token, body: { content: `m${i}` } })),
      );
      await release();
      expectOneWinner(replies, 202, () => runId);
      const transcript = await expectWholeRun(token, runId);
      expect(transcript.filter((r) => r.role === "user")).toHaveLength(round + 1);
    }
  });

  it("GEN-002: 20 runs opened with a message at once: one generates, the rest are busy and leave no run behind", async () => {
    const agent = await newAgent(token, guildId);
    for (let round = 0; round < ROUNDS; round++) {
      const release = await scriptHeld(agent.model, [{ content: `round ${round}` }]);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: `open ${i}` } })),
      );
      await release();
      expectOneWinner(replies, 201, (winner) => winner.json.id);
      await expectWholeRun(token, replies.find((r) => r.status === 201)!.json.id);
    }
    const listed = (await call("GET", `/api/agents/${agent.id}/runs?limit=100`, { token })).json.data;
    expect(listed).toHaveLength(ROUNDS);
  });

  it("GEN-002 / SCHED-008: a routine coming due while messages arrive: never two generations at once, the routine fires once", async () => {
    const agent = await newAgent(token, guildId);
    const runId = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json.id as string;
    const routine = (
      await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: { description: "Yearly", instruction: "Reflect.", cron: "0 0 1 1 *" } })
    ).json;
    const release = await scriptHeld(agent.model, [{ content: "first" }, { content: "second" }]);
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, (object: AgentObject) => {
      object.now = () => Date.parse(routine.next_run_at) + 100;
    });
    // The alarm may wait for its fire's generation: it is let go once the burst is answered.
    const alarm = runDurableObjectAlarm(stub);
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => call("POST", `/api/runs/${runId}/messages`, { token, body: { content: `m${i}` } })));
    await release();
    await alarm;
    expect(replies.filter((r) => r.status >= 500)).toEqual([]);
    const accepted = replies.filter((r) => r.status === 202).length;
    expect(accepted).toBeLessThanOrEqual(1);
    await settled(token, runId);
    // Whichever lost waits its turn: the routine fires on its retry if the message won.
    for (let i = 0; i < 3 && (await call("GET", `/api/schedules/${routine.id}/runs`, { token })).json.data.length === 0; i++) {
      await runInDurableObject(stub, (object: AgentObject) => {
        object.now = () => Date.parse(routine.next_run_at) + 60_000 * (i + 1);
      });
      await runDurableObjectAlarm(stub);
    }
    const fired = (await call("GET", `/api/schedules/${routine.id}/runs`, { token })).json.data;
    expect(fired).toHaveLength(1);
    const scheduleRun = await expectWholeRun(token, fired[0].id);
    const direct = accepted ? await expectWholeRun(token, runId) : [];
    // One generation at a time: the two generations' rows do not interleave in time.
    const spans = [scheduleRun.filter((r) => r.generation !== null), direct.filter((r) => r.generation !== null)]
      .filter((g) => g.length)
      .map((g) => [Date.parse(g[0]!.created_at), Date.parse(g.at(-1)!.created_at)] as const)
      .sort((a, b) => a[0] - b[0]);
    if (spans.length === 2) expect(spans[1]![0]).toBeGreaterThanOrEqual(spans[0]![1]);
  });

  it("GEN-002 / GROUP-009: a group post and a burst of messages at the same instant: one generation at a time, the delivery arrives once", async () => {
    // A guild of its own: a post wakes every agent of its guild.
    const own = await seedGuild("Readers");
    token = own.token;
    guildId = own.guildId;
    const agent = await newAgent(token, guildId, { name: "Reader" });
    const runId = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json.id as string;
    const release = await scriptHeld(agent.model, [{ content: "one" }, { content: "two" }]);
    const post = postChat(token, guildId, "news for everyone");
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => call("POST", `/api/runs/${runId}/messages`, { token, body: { content: `m${i}` } })));
    await release();
    await post;
    expect(replies.filter((r) => r.status >= 500)).toEqual([]);
    expect(replies.filter((r) => r.status === 202).length).toBeLessThanOrEqual(1);
    const [delivery] = await untilDelivered(token, agent.id, 1);
    expect(delivery!.errors.map((e: { code: string }) => e.code)).not.toContain("generation.interrupted");
    await expectWholeRun(token, runId);
    // The direct run is usable after the delivery.
    await script(agent.model, [{ content: "after" }]);
    expect((await call("POST", `/api/runs/${runId}/messages`, { token, body: { content: "still there?" } })).status).toBe(202);
    expect((await settled(token, runId)).errors).toEqual([]);
  });
});

describe("the object's memory", () => {
  it("HARDEN-3: cached sessions are bounded by bytes: the least recently used go first, and an evicted run loads again when used", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId);
    const stub = objectOf(agent.id);
    await runInDurableObject(stub, (object: AgentObject) => {
      object.rooms.context.sessions.budgetBytes = 40_000;
    });
    const big = "x".repeat(15_000);
    const runIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      await script(agent.model, [{ content: `reply ${i}` }]);
      const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: `${i} ${big}` } })).json;
      runIds.push(run.id);
      await settled(token, run.id);
    }
    const cached = await runInDurableObject(stub, (object: AgentObject) => object.rooms.context.sessions.list());
    expect(cached.reduce((n, s) => n + s.bytes, 0)).toBeLessThanOrEqual(40_000);
    expect(cached.map((s) => s.runId)).toEqual(runIds.slice(-cached.length));
    expect(cached.length).toBeLessThan(4);
    // The first run was evicted; a message loads it again with every row.
    await script(agent.model, [{ content: "back" }]);
    expect((await call("POST", `/api/runs/${runIds[0]}/messages`, { token, body: { content: "again" } })).status).toBe(202);
    const transcript = await expectWholeRun(token, runIds[0]!);
    expect(transcript.map((r) => r.role)).toEqual(["system", "user", "assistant", "user", "assistant"]);
  });
});

describe("recovery while the database is away", () => {
  it("CANCEL-006 / HARDEN-2: an earlier instance's lock is kept while the database is unreachable, then recovered on a later heartbeat", async () => {
    const { token, guildId } = await seedGuild();
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ tool_calls: [{ name: "note_list", arguments: {} }], delay_ms: 50 }, { content: "done" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await settled(token, run.id);
    // What a crash mid-tool leaves: the last tool result gone, and the lock of an earlier instance.
    const { openDatabase } = await import("../../../core/db/client");
    const conn = openDatabase(env as unknown as Env);
    const { sql } = await import("drizzle-orm");
    await conn.db.execute(sql`delete from messages where run_id = ${run.id} and seq >= 3`);
    await conn.close();
    const stub = objectOf(agent.id);
    const unreachable = { DATABASE_URL: "postgres://nobody:nothing@127.0.0.1:1/none", NEON_WS_PROXY: (env as unknown as Env).NEON_WS_PROXY };
    const kept = await runInDurableObject(stub, async (object: AgentObject, state) => {
      const context = object.rooms.context as { database: IdleConnection };
      const working = context.database;
      context.database = new IdleConnection(unreachable);
      object.rooms.context.sessions.clear();
      new StoredLock(state.storage.sql, () => object.now(), "an earlier instance").acquire(run.id, 1, 60_000);
      // As the instance constructed after the crash would, it reads the lock from storage.
      object.rooms.context.lock.stored.storageCleared();
      await object.rooms.runs.heartbeat();
      const held = object.rooms.context.lock.held()?.runId ?? null;
      const retry = object.rooms.context.deadlines.list().some((d) => d.name === HEARTBEAT);
      context.database = working;
      return { held, retry };
    });
    expect(kept).toEqual({ held: run.id, retry: true });
    expect(await stub.generationState()).toMatchObject({ generating: true, run_id: run.id });
    await runInDurableObject(stub, (object: AgentObject) => object.rooms.runs.heartbeat());
    expect((await stub.generationState()).generating).toBe(false);
    const transcript = await rows(token, run.id);
    expect(transcript.at(-1)!.payload).toMatchObject({ role: "tool", content: "ERROR: execution interrupted" });
    expect((await call("GET", `/api/runs/${run.id}`, { token })).json.errors.map((e: { code: string }) => e.code)).toEqual(["generation.interrupted"]);
  });
});
