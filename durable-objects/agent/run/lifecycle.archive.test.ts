import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../../core/db/client";
import { messages, runs } from "../../../core/db/schema";
import { newAgent, rows, script, settled, untilGenerating } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

describe("archived runs", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("RUN-024 / OP-RUN-4: an archived run refuses messages and resume, keeps its status, and unarchiving lets it take messages again", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "first" }, { content: "after unarchive" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hi" } })).json;
    await settled(token, run.id);

    const archived = await call("POST", `/api/runs/${run.id}/archive`, { token });
    expect(archived.status).toBe(200);
    expect(archived.json).toMatchObject({ id: run.id, status: "active", archived: true, archived_at: expect.any(String) });
    // Archiving twice keeps the first time.
    expect((await call("POST", `/api/runs/${run.id}/archive`, { token })).json.archived_at).toBe(archived.json.archived_at);

    const message = await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "still there?" } });
    expect(message.status).toBe(409);
    expect(message.json.error).toMatchObject({ code: "run.not_accepting_messages", message: "The run is archived" });
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user", "assistant"]);

    const unarchived = await call("POST", `/api/runs/${run.id}/unarchive`, { token });
    expect(unarchived.json).toMatchObject({ archived: false, archived_at: null });
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "back" } })).status).toBe(202);
    await settled(token, run.id);
    expect((await rows(token, run.id)).at(-1)!.payload.content).toBe("after unarchive");
  });

  it("RUN-024: a completed one-shot run, once archived, cannot be resumed", async () => {
    const agent = await newAgent(token, guildId);
    const { db, close } = openDatabase(env);
    const snapshot = (await db.select().from(runs).limit(1))[0]!.snapshot;
    const [oneShot] = await db.insert(runs).values({ agentId: agent.id, kind: "schedule", status: "completed", snapshot }).returning();
    await db.insert(messages).values({ runId: oneShot!.id, seq: 0, role: "system", payload: { role: "system", content: "sys" }, metadata: {}, tokenCount: 5 });
    await close();
    expect((await call("POST", `/api/runs/${oneShot!.id}/archive`, { token })).json).toMatchObject({ status: "completed", archived: true });
    const resumed = await call("POST", `/api/runs/${oneShot!.id}/resume`, { token });
    expect(resumed.status).toBe(409);
    expect(resumed.json.error).toMatchObject({ code: "run.not_resumable", details: { reason: "archived" } });
    await call("POST", `/api/runs/${oneShot!.id}/unarchive`, { token });
    expect((await call("POST", `/api/runs/${oneShot!.id}/resume`, { token })).status).toBe(200);
  });

  it("RUN-024: archiving a run while it generates is refused 409 run.generating and changes nothing", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "slow", delay_ms: 800 }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    await untilGenerating(token, run.id);
    const res = await call("POST", `/api/runs/${run.id}/archive`, { token });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: "run.generating", details: { run_id: run.id } });
    const after = await settled(token, run.id);
    expect(after).toMatchObject({ archived: false, archived_at: null });
    expect((await call("POST", `/api/runs/${run.id}/archive`, { token })).status).toBe(200);
  });
});
