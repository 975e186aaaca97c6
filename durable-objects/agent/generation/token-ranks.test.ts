import { env } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../bindings/env";
import { openDatabase } from "../../../core/db/client";
import { messages } from "../../../core/db/schema";
import { O200K_ASSET_PATH } from "../../../core/projection/rank-asset";
import { MESSAGE_OVERHEAD } from "../../../core/projection/token-count";
import { newAgent, script, settled } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

describe("token counts in the agent object, with the rank table from the assets (GEN-019)", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GEN-019: the rank table is served among the Worker's static assets", async () => {
    const res = await (env as unknown as Env).ASSETS!.fetch(new Request(new URL(O200K_ASSET_PATH, "https://assets.local")));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { pat_str?: unknown }).pat_str).toEqual(expect.any(String));
  });

  it("GEN-019: stored rows carry exact o200k counts, not estimates", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "hello world" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hello world" } })).json;
    await settled(token, run.id);
    const { db, close } = openDatabase(env);
    const stored = await db.select().from(messages).where(eq(messages.runId, run.id)).orderBy(asc(messages.seq));
    await close();
    // "hello world" is 2 tokens under o200k_base; the fallback estimate would say 4.
    expect(stored.filter((r) => r.role !== "system").map((r) => [r.role, r.tokenCount])).toEqual([
      ["user", MESSAGE_OVERHEAD + 2],
      ["assistant", MESSAGE_OVERHEAD + 2],
    ]);
  });
});
