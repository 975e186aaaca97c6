import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { homeKey } from "./home";

/**
 * The agent's saved home as its sandbox state shows it, and the "Reset home" action, where
 * no container engine runs: the saved archive is the one in R2, put there as a box would.
 */
const homes = () => (env as unknown as Env).SANDBOX_HOMES;

describe("the saved home and Reset home (SBX-005)", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SBX-005: the sandbox state shows the saved home; Reset home deletes it and the state then shows none", async () => {
    const agent = await newAgent(token, guildId);
    expect((await call("GET", `/api/agents/${agent.id}/sandbox`, { token })).json.saved_home).toBeNull();
    await homes().put(homeKey(agent.id), new Uint8Array(1234));
    const before = await call("GET", `/api/agents/${agent.id}/sandbox`, { token });
    expect(before.json.saved_home).toMatchObject({ bytes: 1234 });
    expect(before.json).not.toHaveProperty("home_save_error");

    const reset = await call("POST", `/api/agents/${agent.id}/sandbox/reset`, { token });
    expect(reset.status, JSON.stringify(reset.json)).toBe(200);
    expect(reset.json).toEqual({ reset: true, destroyed: false });
    expect(await homes().head(homeKey(agent.id))).toBeNull();
    expect((await call("GET", `/api/agents/${agent.id}/sandbox`, { token })).json.saved_home).toBeNull();
  });

  it("SBX-005: deleting an agent deletes its saved home", async () => {
    const agent = await newAgent(token, guildId);
    await homes().put(homeKey(agent.id), new Uint8Array(10));
    expect((await call("DELETE", `/api/agents/${agent.id}`, { token })).status).toBe(204);
    expect(await homes().head(homeKey(agent.id))).toBeNull();
  });
});
