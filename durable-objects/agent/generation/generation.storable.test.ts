import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, rows, script, settled } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

describe("text Postgres cannot store", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("HARDEN-5: a model reply carrying NUL is stored with U+FFFD in its place, and the run goes on", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ content: "before\u0000after" }, { content: "next" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hello" } })).json;
    expect((await settled(token, run.id)).errors).toEqual([]);
    expect((await rows(token, run.id)).at(-1)!.payload.content).toBe("before\uFFFDafter");
    expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } })).status).toBe(202);
    expect((await settled(token, run.id)).errors).toEqual([]);
  });
});
