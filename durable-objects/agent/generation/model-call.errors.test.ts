import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { newAgent, rows, script, settled } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

/** The provider key the workerd test projects bind as MODEL_API_KEY. */
const KEY = "sk-test-provider-key-0123456789";

describe("provider failures in runs.errors and logs", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));
  afterEach(() => vi.restoreAllMocks());

  it("ERR-002 / ERR-003 / ERR-004 / ERR-005: one structured line with run, guild, agent, operation and traceback; the key redacted; no prompt", async () => {
    const lines: string[] = [];
    for (const method of ["error", "log", "warn"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ status: 401, content: `Incorrect API key provided: ${KEY}` }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "the confidential plan" } })).json;
    const after = await settled(token, run.id);
    expect(after.errors[0].code).toBe("provider.error");
    expect(after.errors[0].http_status).toBe(401);
    expect(after.errors[0].message).toContain("[REDACTED:MODEL_API_KEY]");
    expect(JSON.stringify(after)).not.toContain(KEY);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);
    const logged = lines.filter((l) => l.includes(run.id)).map((l) => JSON.parse(l));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: "error", operation: "model.call", run_id: run.id, agent_id: agent.id, guild_id: guildId });
    expect(logged[0].traceback).toEqual(expect.stringContaining("ProviderError"));
    const text = JSON.stringify(logged);
    expect(text).not.toContain(KEY);
    expect(text).toContain("[REDACTED:MODEL_API_KEY]");
    expect(text).not.toContain("the confidential plan");
  });

  it("TASK-027: a provider's 429 keeps when its limit resets, from its retry-after header", async () => {
    const agent = await newAgent(token, guildId);
    await script(agent.model, [{ status: 429, content: "slow down", headers: { "retry-after": "90" } }]);
    const before = Date.now();
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hi" } })).json;
    const after = await settled(token, run.id);
    expect(after.errors[0]).toMatchObject({ code: "provider.error", http_status: 429 });
    const reset = Date.parse(after.errors[0].reset_at);
    expect(reset).toBeGreaterThanOrEqual(before + 90_000 - 1_000);
    expect(reset).toBeLessThanOrEqual(Date.now() + 90_000 + 1_000);
  });
});
