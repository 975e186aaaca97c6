import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { guildObject } from "../../bindings/objects";
import { openDatabase } from "../../core/db/client";
import { messages } from "../../core/db/schema";
import { loadRows, toWireRow } from "../../core/db/transcript";
import type { AgentObject } from "../../durable-objects/agent/agent-object";
import { SseHub } from "../../durable-objects/common/sse-hub";
import type { GuildObject } from "../../durable-objects/guild/guild-object";
import { modelRequests, newAgent, objectOf, rows, script, settled, toolCall } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { collectEvents } from "../../test/workerd/sse";

/** Sets (or with undefined, removes) a variable of the agent object's environment for the test. */
async function setObjectEnv(agentId: string, name: keyof Env, value: string | undefined) {
  await runInDurableObject(objectOf(agentId), (instance: AgentObject) => {
    const env = (instance as unknown as { env: Record<string, unknown> }).env;
    if (value === undefined) delete env[name];
    else env[name] = value;
  });
}

const errorCodes = (run: { errors: Array<{ code: string }> }) => run.errors.map((e) => e.code);

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
      (instance as unknown as { hub: SseHub<{ seq: number }> }).hub = new SseHub(async () => [], { maxSubscribers: 1 });
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

  it("EXACT-003 / HARDEN-3: the prompt replay of a row after 1,200 others reads them in pages and returns every one, in order", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const { db, close } = openDatabase(env as unknown as Env);
    try {
      const rows = Array.from({ length: 1_200 }, (_, i) => ({
        runId: run.id,
        seq: i + 1,
        generation: 1,
        role: "user",
        payload: { role: "user", content: `m${i + 1}` },
        metadata: { source: "operator" },
        tokenCount: 3,
      }));
      await db.insert(messages).values(rows as never);
      await db.insert(messages).values({
        runId: run.id,
        seq: 1_201,
        generation: 1,
        role: "assistant",
        payload: { role: "assistant", content: "ok" },
        metadata: { source: "model", projection: { keep: 1, pressure_stubbed: [], hash: "recorded" } },
        tokenCount: 2,
      } as never);
    } finally {
      await close();
    }
    const replay = await call("GET", `/api/runs/${run.id}/messages/1201/prompt`, { token });
    expect(replay.status).toBe(200);
    expect(replay.json.messages).toHaveLength(1_201);
    expect(replay.json.messages[0].role).toBe("system");
    expect(replay.json.messages.slice(1).map((m: { content: string }) => m.content)).toEqual(Array.from({ length: 1_200 }, (_, i) => `m${i + 1}`));
  });

  it("HARDEN-3 / ERR-001: a reply with more tool calls than the cap is stopped: no row, a clear run error, and the next message works", async () => {
    const agent = await newAgent(token, guildId);
    const calls = Array.from({ length: 65 }, (_, i) => toolCall("note_write", { title: `n${i}`, body: "x" }));
    await script(agent.model, [{ tool_calls: calls }, { content: "fine again" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const after = await settled(token, run.id);
    expect(errorCodes(after)).toEqual(["provider.too_many_tool_calls"]);
    expect(after.errors[0].message).toContain("64 tool calls");
    expect(after.status).toBe("active");
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);

    const next = await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } });
    expect(next.status).toBe(202);
    await settled(token, run.id);
    const transcript = await rows(token, run.id);
    expect(transcript.map((r) => r.role)).toEqual(["system", "user", "user", "assistant"]);
    expect(transcript.at(-1)!.payload.content).toBe("fine again");
    expect(await modelRequests(agent.model)).toHaveLength(2);
  });

  it("HARDEN-3 / RUN-016: encrypted reasoning blocks count toward the reply's byte cap, and past 256 blocks the reply is stopped: no row, a clear run error", async () => {
    const agent = await newAgent(token, guildId, { thinking_level: "high" });
    await setObjectEnv(agent.id, "MAX_REPLY_BYTES", "1000");
    try {
      const encrypted = { type: "reasoning.encrypted", id: "r1", data: "Q".repeat(2_000) };
      const many = Array.from({ length: 257 }, (_, i) => ({ type: "reasoning.encrypted", id: `b${i}` }));
      await script(agent.model, [{ reasoning_details: [encrypted], content: "hi" }, { reasoning_details: many, content: "hi" }, { content: "fine again" }]);
      const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "think" } })).json;
      let after = await settled(token, run.id);
      expect(errorCodes(after)).toEqual(["provider.reply_too_large"]);
      expect(after.errors[0].message).toContain("1000 bytes");

      await setObjectEnv(agent.id, "MAX_REPLY_BYTES", undefined);
      expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } })).status).toBe(202);
      after = await settled(token, run.id);
      expect(errorCodes(after)).toEqual(["provider.reply_too_large", "provider.reply_too_large"]);
      expect(after.errors[1].message).toContain("256 reasoning blocks");
      expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user", "user"]);

      expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "last" } })).status).toBe(202);
      await settled(token, run.id);
      expect((await rows(token, run.id)).at(-1)!.payload.content).toBe("fine again");
    } finally {
      await setObjectEnv(agent.id, "MAX_REPLY_BYTES", undefined);
    }
  });

  it("HARDEN-3 / ERR-001: a reply past the byte cap is stopped mid-stream: no row, a clear run error and event, and the next message works", async () => {
    const agent = await newAgent(token, guildId);
    await setObjectEnv(agent.id, "MAX_REPLY_BYTES", "1000");
    try {
      await script(agent.model, [{ content: "word ".repeat(400) }, { content: "short" }]);
      const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
      const events = collectEvents(token, run.id, (e) => e.some((x) => x.event === "error"));
      await new Promise((r) => setTimeout(r, 100));
      expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "go" } })).status).toBe(202);
      const after = await settled(token, run.id);
      expect(errorCodes(after)).toEqual(["provider.reply_too_large"]);
      expect(after.errors[0].message).toContain("1000 bytes");
      const error = (await events).find((e) => e.event === "error");
      expect(error?.data).toMatchObject({ run_id: run.id, code: "provider.reply_too_large" });
      expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);

      expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } })).status).toBe(202);
      await settled(token, run.id);
      expect((await rows(token, run.id)).at(-1)!.payload.content).toBe("short");
    } finally {
      await setObjectEnv(agent.id, "MAX_REPLY_BYTES", undefined);
    }
  });
});
