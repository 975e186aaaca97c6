import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { promptVariants } from "../../core/db/schema";
import { SECRET_VALUE_CANARY } from "../../test/setup/secret-canary";
import { modelRequests, newAgent, rows, script, settled, toolCall, untilGenerating } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { Variant, VariantBatch, VariantPage } from "./variants.schema";

/** A run with one answered message: the recorded call the variants replay. */
async function recordedRun(token: string, guildId: string, settings: Record<string, unknown> = {}) {
  const agent = await newAgent(token, guildId, settings);
  await script(agent.model, [{ content: "The recorded answer", usage: { prompt_tokens: 100, completion_tokens: 10 } }]);
  const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "What is two and two?" } })).json;
  await settled(token, run.id);
  const assistant = (await rows(token, run.id)).find((r) => r.role === "assistant")!;
  return { agent, runId: run.id as string, seq: assistant.seq };
}

const variantsPath = (runId: string, seq: number) => `/api/runs/${runId}/messages/${seq}/variants`;
// "mock-model…": a name the price table knows, so the platform's key may call it.
const model = () => `mock-model-variant-${crypto.randomUUID().slice(0, 8)}`;

describe("what-if replay (decision 0022)", () => {
  let token: string;
  let guildId: string;
  // The first request of a lone file also starts the Worker and its database connection.
  beforeAll(async () => ({ token, guildId } = await seedGuild("What if")), 60_000);

  it("EXACT-003: variants send the recorded prompt with their settings, are stored apart, and leave the transcript unchanged", async () => {
    const { runId, seq } = await recordedRun(token, guildId);
    const before = await rows(token, runId);
    const prompt = (await call("GET", `/api/runs/${runId}/messages/${seq}/prompt`, { token })).json;
    const [a, b] = [model(), model()];
    await script(a, [{ content: "Four.", usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    await script(b, [
      { content: "It is four", tool_calls: [toolCall("notes_read", { title: "math" })], usage: { prompt_tokens: 1000, completion_tokens: 20 } },
    ]);
    const res = await call("POST", variantsPath(runId, seq), {
      token,
      body: {
        variants: [
          { model: a, temperature: 0.3, max_tokens: 50 },
          { model: b, thinking_level: "high", system_prompt: "Answer in words." },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    // The answers are the shapes the API document names.
    VariantBatch.parse(res.json);
    const [first, second] = res.json.data;
    expect(first).toMatchObject({
      status: "completed",
      run_id: runId,
      message_seq: seq,
      answer: { content: "Four.", tool_calls: [] },
      input_tokens: 1000,
      output_tokens: 100,
    });
    expect(second.answer.content).toBe("It is four");
    expect(second.answer.tool_calls[0].function.name).toBe("notes_read");
    expect(first.batch_id).toBe(second.batch_id);
    expect(first.latency_ms).toBeGreaterThanOrEqual(0);
    expect(first.settings).toEqual({ model: a, temperature: 0.3, max_tokens: 50 });
    expect(first.requested_by).toBe((await call("GET", "/api/tokens", { token })).json.data[0].id);

    // The exact recorded prompt, with each variant's settings; the changed system prompt only in the second.
    const [sentA] = await modelRequests(a);
    expect(sentA!.body.messages).toEqual(prompt.messages);
    expect(sentA!.body).toMatchObject({ temperature: 0.3, max_tokens: 50 });
    expect(first.prompt_hash).toMatch(/^[0-9a-f]{64}$/);
    const [sentB] = await modelRequests(b);
    expect(sentB!.body.messages[0]).toEqual({ role: "system", content: "Answer in words." });
    expect(sentB!.body.messages.slice(1)).toEqual(prompt.messages.slice(1));
    expect(sentB!.body.reasoning_effort).toBe("high");
    expect(second.prompt_hash).not.toBe(first.prompt_hash);

    // No tool ran, no row was written.
    expect(await rows(token, runId)).toEqual(before);
    const list = await call("GET", `${variantsPath(runId, seq)}?limit=1`, { token });
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.next_cursor).not.toBeNull();
    VariantPage.parse(list.json);
    const rest = await call("GET", `${variantsPath(runId, seq)}?cursor=${list.json.next_cursor}`, { token });
    // Newest first; a batch (one created_at) in the reverse of the order asked.
    expect([...list.json.data, ...rest.json.data].map((v: { id: string }) => v.id)).toEqual([second.id, first.id]);
    const read = await call("GET", `/api/variants/${first.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(first);
    Variant.parse(read.json);
  });

  it("EXACT-003: a variant without changes sends the recorded request, with the recorded hash", async () => {
    const { agent, runId, seq } = await recordedRun(token, guildId);
    const prompt = (await call("GET", `/api/runs/${runId}/messages/${seq}/prompt`, { token })).json;
    await script(agent.model, [{ content: "again" }]);
    const res = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{}] } });
    expect(res.status).toBe(201);
    expect(res.json.data[0].prompt_hash).toBe(prompt.recorded_hash);
    expect(res.json.data[0].answer.content).toBe("again");
  });

  it("USAGE-003 / USAGE-005: a variant's cost counts in the usage counters, and a variant over the spend limit is refused as a generation is", async () => {
    const { guildId: ownGuild, token: own } = await seedGuild("What if spend");
    const { agent, runId, seq } = await recordedRun(own, ownGuild);
    const totals = async () => (await call("GET", "/api/usage?scope=org", { token: own })).json.totals;
    const agentTotals = async () => (await call("GET", `/api/usage?scope=agent&id=${agent.id}`, { token: own })).json.totals;
    const before = await totals();
    const beforeAgent = await agentTotals();
    await script(agent.model, [{ content: "priced", usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    const res = await call("POST", variantsPath(runId, seq), { token: own, body: { variants: [{}] } });
    expect(res.json.data[0].cost_usd).toBe("0.001200");
    const after = await totals();
    expect(Number(after.cost_usd) - Number(before.cost_usd)).toBeCloseTo(0.0012, 6);
    expect(after.calls).toBe(before.calls + 1);
    expect(Number((await agentTotals()).cost_usd) - Number(beforeAgent.cost_usd)).toBeCloseTo(0.0012, 6);
    // The usage reports read the calls themselves: the recorded reply and the variant.
    const summary = (await call("GET", "/api/usage/summary", { token: own })).json;
    expect(summary.totals).toMatchObject({ calls: 2, input_tokens: 1100, output_tokens: 110 });
    expect(summary.totals.cost_usd).toBe(after.cost_usd);

    expect((await call("PATCH", "/api/organisation", { token: own, body: { monthly_spend_limit_usd: 0.001 } })).status).toBe(200);
    const refused = await call("POST", variantsPath(runId, seq), { token: own, body: { variants: [{}] } });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("usage.spend_limit");
    expect(refused.json.error.message).toBe("The organisation reached its monthly spend limit of 0.001 USD; no model call was made");
    expect((await call("GET", variantsPath(runId, seq), { token: own })).json.data).toHaveLength(1);
    expect((await totals()).calls).toBe(after.calls);
  });

  it("SEC-014 / ERR-011: a secret the variant's model echoes is redacted in the stored answer", async () => {
    const { agent, runId, seq } = await recordedRun(token, guildId);
    const created = await call("POST", "/api/secrets", { token, body: { name: "VARIANT_KEY", value: SECRET_VALUE_CANARY } });
    expect(created.status).toBe(201);
    expect((await call("POST", `/api/secrets/${created.json.id}/grants`, { token, body: { agent_id: agent.id } })).status).toBe(201);
    await script(agent.model, [
      {
        content: `The key is ${SECRET_VALUE_CANARY}`,
        reasoning: `I saw ${SECRET_VALUE_CANARY}`,
        tool_calls: [toolCall("notes_read", { title: SECRET_VALUE_CANARY })],
      },
    ]);
    const res = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{}] } });
    expect(res.status).toBe(201);
    const { answer, id } = res.json.data[0];
    expect(answer.content).toBe("The key is [REDACTED:VARIANT_KEY]");
    expect(answer.reasoning).toBe("I saw [REDACTED:VARIANT_KEY]");
    expect(JSON.parse(answer.tool_calls[0].function.arguments)).toEqual({ title: "[REDACTED:VARIANT_KEY]" });
    const { db, close } = openDatabase(env);
    try {
      const [stored] = await db.select().from(promptVariants).where(eq(promptVariants.id, id));
      expect(JSON.stringify(stored)).not.toContain(SECRET_VALUE_CANARY);
    } finally {
      await close();
    }
  });

  it("a variant runs while the run generates: it neither takes nor waits for the generation lock", async () => {
    const { agent, runId, seq } = await recordedRun(token, guildId);
    await script(agent.model, [{ content: "slow", delay_ms: 4_000 }]);
    expect((await call("POST", `/api/runs/${runId}/messages`, { token, body: { content: "take your time" } })).status).toBe(202);
    await untilGenerating(token, runId);
    const quick = model();
    await script(quick, [{ content: "quick" }]);
    const res = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: quick }] } });
    expect(res.status).toBe(201);
    expect(res.json.data[0].answer.content).toBe("quick");
    expect((await call("GET", `/api/runs/${runId}`, { token })).json.generating).toBe(true);
    await settled(token, runId);
    expect((await rows(token, runId)).at(-1)!.payload.content).toBe("slow");
  });

  it("a failed provider call is a failed variant beside the others", async () => {
    const { runId, seq } = await recordedRun(token, guildId);
    const [good, bad] = [model(), model()];
    await script(good, [{ content: "fine" }]);
    await script(bad, [{ status: 500 }]);
    const res = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: good }, { model: bad }] } });
    expect(res.status).toBe(201);
    expect(res.json.data.map((v: { status: string }) => v.status)).toEqual(["completed", "failed"]);
    expect(res.json.data[1].error).toMatchObject({ code: "provider.error", http_status: 500 });
    expect(res.json.data[1].cost_usd).toBe("0.000000");
  });

  it("404 for a row that is not an assistant row, another organisation's run or variant; 422 naming the field", async () => {
    const { runId, seq } = await recordedRun(token, guildId);
    const user = (await rows(token, runId)).find((r) => r.role === "user")!;
    expect((await call("POST", variantsPath(runId, user.seq), { token, body: { variants: [{}] } })).json.error.code).toBe("message.not_found");
    expect((await call("GET", variantsPath(runId, 9999), { token })).status).toBe(404);
    const other = await seedGuild("Elsewhere");
    const foreign = await call("POST", variantsPath(runId, seq), { token: other.token, body: { variants: [{}] } });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe("run.not_found");
    expect((await call("GET", `/api/variants/${crypto.randomUUID()}`, { token })).status).toBe(404);

    const invalid = async (body: unknown) => {
      const res = await call("POST", variantsPath(runId, seq), { token, body });
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      return res.json.error.details.fields.map((f: { field: string }) => f.field);
    };
    expect(await invalid({ variants: [] })).toEqual(["variants"]);
    expect(await invalid({ variants: Array.from({ length: 9 }, () => ({})) })).toEqual(["variants"]);
    expect(await invalid({ variants: [{}, { temperature: 5 }] })).toEqual(["variants.1.temperature"]);
    expect(await invalid({ variants: [{ thinking_level: "max" }] })).toEqual(["variants.0.thinking_level"]);
    expect(await invalid({ variants: [{ max_tokens: 0 }] })).toEqual(["variants.0.max_tokens"]);
    expect(await invalid({ variants: [{ colour: "blue" }] })).toEqual(["variants.0.colour"]);
    expect(await invalid({ variants: [{ tools: [{ type: "function", function: { name: "bad name" } }] }] })).toEqual(["variants.0.tools.0.function.name"]);
    expect(await invalid({ variants: [{ base_url: "http://10.0.0.5/v1", api_key_secret: "K" }] })).toEqual(["variants.0.base_url"]);
    expect(await invalid({ variants: [{ base_url: "https://models.example.com/v1" }] })).toEqual(["variants.0.api_key_secret"]);
  });
});
