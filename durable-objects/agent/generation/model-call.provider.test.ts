import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../bindings/env";
import { modelRequests, newAgent, rows, script, settled } from "../../../test/workerd/agents";
import { call, seedGuild, seedOrganisation } from "../../../test/workerd/seed";
import { collectEvents } from "../../../test/workerd/sse";

/** The platform key of the test configuration: the canary that must reach only the platform's provider. */
const CANARY = (env as unknown as Env).MODEL_API_KEY!;
const PLATFORM = (env as unknown as Env).MODEL_BASE_URL!;
/** The same mock server under another path: a provider other than the platform's. */
const TENANT = PLATFORM.replace(/\/v1$/, "/tenant/v1");

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

type Recorded = { path: string; authorization_sha256: string | null };

describe("provider keys, egress and cost integrity", () => {
  let token: string;
  let guildId: string;
  // The first file of a run may wait for the isolate and the database pool to warm up.
  beforeAll(async () => ({ token, guildId } = await seedGuild()), 30_000);
  afterEach(() => vi.restoreAllMocks());

  it("HARDEN-4: the platform key reaches the platform's provider however its URL is spelled, and no other base URL", async () => {
    const canaryAuth = await sha256(`Bearer ${CANARY}`);
    // Control: the platform's URL spelled with a trailing slash is the platform's provider,
    // and the mock's fingerprint shows the canary there, so the check below can see it.
    const platform = await newAgent(token, guildId, { model_base_url: `${PLATFORM}/` });
    const platformRun = (await call("POST", `/api/agents/${platform.id}/runs`, { token, body: { message: "hi" } })).json;
    expect((await settled(token, platformRun.id)).errors).toEqual([]);
    const reached = (await modelRequests(platform.model)) as unknown as Recorded[];
    expect(reached.map((r) => [r.path, r.authorization_sha256])).toEqual([["/v1/chat/completions", canaryAuth]]);

    for (const settings of [{ model_base_url: TENANT }, { model_base_url: `${TENANT}/` }, { model_base_url: TENANT, model_api_key_secret: "TENANT_KEY" }]) {
      const agent = await newAgent(token, guildId, settings);
      await script(agent.model, [{ content: "must not be asked" }]);
      const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: {} })).json;
      const events = await eventsWhile(token, run.id, () => call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "hi" } }));
      const after = await settled(token, run.id);
      const code = settings.model_api_key_secret ? "secret.missing" : "provider.key_required";
      expect(after.errors).toEqual([expect.objectContaining({ code, operation: "generation.start", generation: 1 })]);
      if (!settings.model_api_key_secret) expect(after.errors[0].message).toContain("model_api_key_secret");
      const requests = (await modelRequests(agent.model)) as unknown as Recorded[];
      expect(requests.filter((r) => r.authorization_sha256 === canaryAuth)).toEqual([]);
      expect(requests).toEqual([]);
      const seen = JSON.stringify([after, events, await rows(token, run.id), (await call("GET", `/api/agents/${agent.id}`, { token })).json]);
      expect(seen).not.toContain(CANARY);
      expect(events.some((e) => e.event === "error" && e.data.code === code)).toBe(true);
      // The run stays usable: the next message gets the same clear refusal, not a 5xx.
      expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "again" } })).status).toBe(202);
      expect((await settled(token, run.id)).errors.at(-1)).toMatchObject({ code });
    }
  });

  it("HARDEN-4: a provider reporting a negative cost credits nobody; the row is priced from the table and one line is logged", async () => {
    const lines: string[] = [];
    for (const method of ["error", "log", "warn"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    const { token: own } = await seedOrganisation("Credited");
    const g = (await call("POST", "/api/guilds", { token: own, body: { name: "G" } })).json.id;
    const agent = await newAgent(own, g);
    await script(agent.model, [
      {
        content: "hi",
        usage: { prompt_tokens: 1000, completion_tokens: 100 },
        usage_extra: { cost: -5000, completion_tokens_details: { reasoning_tokens: -7 } },
      },
    ]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token: own, body: { message: "go" } })).json;
    await settled(own, run.id);
    const assistant = (await rows(own, run.id)).find((r) => r.role === "assistant")!;
    // mock-model prices: input 1, output 2 USD per million tokens.
    expect(assistant.cost_usd).toBe("0.001200");
    expect(assistant.metadata).toMatchObject({
      cost_usd: 0.0012,
      priced: true,
      price_source: "table",
      usage: { prompt_tokens: 1000, completion_tokens: 100, reasoning_tokens: 0 },
    });
    expect(assistant.metadata.usage.cost).toBeUndefined();
    const org = (await call("GET", "/api/usage?scope=org", { token: own })).json;
    expect(org.month.cost_usd).toBe("0.001200");
    expect(org.totals).toMatchObject({ cost_usd: "0.001200", reasoning_tokens: 0 });
    const logged = lines.filter((l) => l.includes(run.id)).map((l) => JSON.parse(l));
    expect(logged).toEqual([expect.objectContaining({ level: "warn", operation: "model.usage_rejected", rejected: { cost: -5000, reasoning_tokens: -7 } })]);
  });

  it("ERR-001 / ERR-002 / ERR-004: a provider error body is kept as its status and a short, redacted message", async () => {
    const lines: string[] = [];
    for (const method of ["error", "log", "warn"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    }
    const agent = await newAgent(token, guildId);
    const body = `upstream said: key ${CANARY} rejected\n<html>${"<p>noise</p>".repeat(400)}</html>`;
    await script(agent.model, [{ status: 502, content: body }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const after = await settled(token, run.id);
    expect(after.errors).toEqual([expect.objectContaining({ code: "provider.error", http_status: 502, operation: "model.call" })]);
    const message: string = after.errors[0].message;
    expect(message.length).toBeLessThanOrEqual(200);
    expect(message).toContain("502");
    expect(message).toContain("[REDACTED:MODEL_API_KEY]");
    expect(message).not.toContain("\n");
    expect(JSON.stringify(after)).not.toContain(CANARY);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);
    // The log line carries the same short message, not the body.
    const logged = lines.filter((l) => l.includes(run.id)).map((l) => JSON.parse(l));
    expect(logged).toEqual([expect.objectContaining({ operation: "model.call", message: `ProviderError: ${message}` })]);
    expect(JSON.stringify(logged)).not.toContain("</html>");
    expect(JSON.stringify(logged)).not.toContain(CANARY);
  });

  it("HARDEN-4: a provider answering with a redirect is not followed: the run records provider.url_refused and nothing reaches the redirect's target", async () => {
    const agent = await newAgent(token, guildId);
    const target = PLATFORM.replace(/\/v1$/, "/redirected/v1/chat/completions");
    // Were the redirect followed, the second reply would answer it and the run would succeed.
    await script(agent.model, [{ redirect_to: target }, { content: "followed the redirect" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const after = await settled(token, run.id);
    expect(after.errors).toEqual([expect.objectContaining({ code: "provider.url_refused", operation: "model.call" })]);
    expect(after.errors[0].message).toContain("redirect, which this platform does not follow");
    const requests = (await modelRequests(agent.model)) as unknown as Recorded[];
    expect(requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user"]);
  });

  it("USAGE-005: an unpriced model on the platform's key is refused before any call when no default price is configured", async () => {
    const model = `unpriced-${crypto.randomUUID().slice(0, 8)}`;
    const agent = (await call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "Unpriced", model } })).json;
    await script(model, [{ content: "free lunch" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "go" } })).json;
    const after = await settled(token, run.id);
    expect(after.errors).toEqual([expect.objectContaining({ code: "usage.unpriced_model", operation: "generation.start" })]);
    expect(after.errors[0].message).toContain("DEFAULT_MODEL_PRICE");
    expect(await modelRequests(model)).toEqual([]);
  });
});

/** The run's events from before `act` until its generation ended with an error. */
async function eventsWhile(token: string, runId: string, act: () => Promise<unknown>) {
  let connected!: () => void;
  const subscribed = new Promise<void>((resolve) => (connected = resolve));
  const collecting = collectEvents(token, runId, (events) => {
    connected();
    const failed = events.findIndex((e) => e.event === "error");
    return failed >= 0 && events.slice(failed).some((e) => e.event === "status" && e.data.generating === false);
  });
  await subscribed;
  await act();
  return collecting;
}
