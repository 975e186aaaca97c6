import { describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

describe("opening a run: the answer is the run as written, the agent's organisation still checked", () => {
  it("HARDEN: an agent already opened by its own organisation stays 404 to another organisation, and a deleted agent is 404", async () => {
    const own = await seedGuild();
    const other = await seedGuild();
    const agent = await newAgent(own.token, own.guildId);
    expect((await call("POST", `/api/agents/${agent.id}/runs`, { token: own.token, body: {} })).status).toBe(201);
    const foreign = await call("POST", `/api/agents/${agent.id}/runs`, { token: other.token, body: { message: "hello" } });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe("agent.not_found");
    expect((await call("DELETE", `/api/agents/${agent.id}`, { token: own.token })).status).toBe(204);
    const gone = await call("POST", `/api/agents/${agent.id}/runs`, { token: own.token, body: { message: "still there?" } });
    expect(gone.status).toBe(404);
    expect(gone.json.error.code).toBe("agent.not_found");
  });
});
