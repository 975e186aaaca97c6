import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../test/workerd/seed";

describe("usage and spend limit", () => {
  let token: string;
  beforeAll(async () => ({ token } = await seedGuild()));

  it("rejects a usage query without a scope, or with another organisation's agent", async () => {
    expect((await call("GET", "/api/usage", { token })).status).toBe(422);
    expect((await call("GET", "/api/usage?scope=agent", { token })).status).toBe(422);
    const { token: other } = await seedOrganisation();
    const g = (await call("POST", "/api/guilds", { token: other, body: { name: "G" } })).json.id;
    const theirs = await newAgent(other, g);
    expect((await call("GET", `/api/usage?scope=agent&id=${theirs.id}`, { token })).status).toBe(404);
  });
});
