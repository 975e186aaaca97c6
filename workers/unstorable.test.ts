import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, rows } from "../test/workerd/agents";
import { call, seedGuild } from "../test/workerd/seed";

describe("text Postgres cannot store", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("HARDEN-5: a NUL character or a lone surrogate in any body field is a 422 naming it, never a 500, and nothing is written", async () => {
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "/api/guilds", { name: "G\u0000" }, "name"],
      ["POST", `/api/guilds/${guildId}/agents`, { name: "A", instructions: "be \uD800 kind" }, "instructions"],
      ["POST", `/api/runs/${run.id}/messages`, { content: "hi\u0000" }, "content"],
      ["POST", `/api/agents/${agent.id}/runs`, { message: "\uDC00" }, "message"],
      ["POST", `/api/guilds/${guildId}/chat`, { content: "a\u0000b" }, "content"],
      ["POST", `/api/agents/${agent.id}/schedules`, { description: "d", instruction: "\u0000", cron: "0 0 * * *" }, "instruction"],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await call(method, path, { token, body });
      expect(res.status, `${path} ${JSON.stringify(res.json)}`).toBe(422);
      expect(res.json.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system"]);
    expect((await call("GET", `/api/agents/${agent.id}/runs`, { token })).json.data).toHaveLength(1);
  });
});
