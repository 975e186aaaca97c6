import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../test/workerd/seed";

describe("run events over SSE", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("answers 404 for another organisation's run and 422 for a bad cursor", async () => {
    const { token: other } = await seedOrganisation();
    const agent = await newAgent(token, guildId);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
    expect((await call("GET", `/api/runs/${run.id}/events`, { token: other })).status).toBe(404);
    expect((await call("GET", `/api/runs/${run.id}/events?after_seq=abc`, { token })).status).toBe(422);
  });
});
