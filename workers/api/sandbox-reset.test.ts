import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { homeKey } from "../../durable-objects/sandbox/home";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

/**
 * The agent's saved home as its sandbox state shows it, and the "Reset home" action, where
 * no container engine runs: the saved archive is the one in R2, put there as a box would.
 */
const homes = () => (env as unknown as Env).SANDBOX_HOMES;

describe("the saved home and Reset home (SBX-005)", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("SBX-034: another organisation cannot see or reset an agent's home", async () => {
    const agent = await newAgent(token, guildId);
    await homes().put(homeKey(agent.id), new Uint8Array(10));
    const other = await seedGuild("Other org");
    for (const [method, path] of [
      ["GET", "sandbox"],
      ["POST", "sandbox/reset"],
    ] as const) {
      const res = await call(method, `/api/agents/${agent.id}/${path}`, { token: other.token });
      expect(res.status, path).toBe(404);
      expect(res.json.error.code).toBe("agent.not_found");
    }
    expect(await homes().head(homeKey(agent.id))).not.toBeNull();
  });
});
