import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { openDatabase } from "../../core/db/client";
import { messages } from "../../core/db/schema";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

describe("bounded memory: streams, replies, prompt replay", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

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
});
