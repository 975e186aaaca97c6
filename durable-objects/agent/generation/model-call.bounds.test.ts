import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../bindings/env";
import { modelRequests, newAgent, objectOf, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import { openEvents } from "../../../test/workerd/sse";
import type { AgentObject } from "../agent-object";

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
      const { opened, events } = openEvents(token, run.id, (e) => e.some((x) => x.event === "error"));
      await opened;
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
