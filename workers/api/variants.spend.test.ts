import { env } from "cloudflare:workers";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../core/db/client";
import { promptVariants } from "../../core/db/schema";
import { modelRequests, newAgent, rows, script, settled } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

/** A run with one answered message: the recorded call the variants replay. */
async function recordedRun(token: string, guildId: string) {
  const agent = await newAgent(token, guildId);
  await script(agent.model, [{ content: "The recorded answer", usage: { prompt_tokens: 100, completion_tokens: 10 } }]);
  const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "What is two and two?" } })).json;
  await settled(token, run.id);
  const assistant = (await rows(token, run.id)).find((r) => r.role === "assistant")!;
  return { agent, runId: run.id as string, seq: assistant.seq as number };
}

const variantsPath = (runId: string, seq: number) => `/api/runs/${runId}/messages/${seq}/variants`;
// "mock-model…": priced as mock-model (1 USD in, 2 USD out per million tokens).
const model = () => `mock-model-variant-${crypto.randomUUID().slice(0, 8)}`;

/** The organisation's spend this month and its effective limit, as the Usage page reads them. */
async function month(token: string) {
  const { month } = (await call("GET", "/api/usage?scope=org", { token })).json;
  return { spent: Number(month.cost_usd), limit: month.limit_usd === null ? null : Number(month.limit_usd) };
}

/** What the organisation's variants hold against the limit, and how many are still pending. */
async function holds(organisationId: string) {
  const { db, close } = openDatabase(env);
  try {
    const [row] = await db
      .select({
        reserved: sql<string>`coalesce(sum(${promptVariants.reservedUsd}), 0)::text`,
        pending: sql<number>`count(*) filter (where ${promptVariants.status} = 'pending')::int`,
      })
      .from(promptVariants)
      .where(eq(promptVariants.organisationId, organisationId));
    return { reserved: Number(row!.reserved), pending: row!.pending };
  } finally {
    await close();
  }
}

/** A pending variant's row holding `usd`, inserted `minutesAgo`: what a batch in flight (or one whose process died) leaves. */
function pendingHold(of: { organisationId: string; runId: string; seq: number }, usd: string, minutesAgo: number) {
  return {
    organisationId: of.organisationId,
    runId: of.runId,
    messageSeq: of.seq,
    batchId: crypto.randomUUID(),
    settings: {},
    status: "pending",
    reservedUsd: usd,
    createdAt: new Date(Date.now() - minutesAgo * 60_000),
  };
}

async function setLimit(token: string, usd: number) {
  const res = await call("PATCH", "/api/organisation", { token, body: { monthly_spend_limit_usd: usd } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
}

describe("what-if replay under the spend limit (decision 0022)", () => {
  it("USAGE-005 / OP-USAGE-1: twenty what-if batches at once: only those whose worst case fits are accepted, the rest refused before any call, spend stays under the limit and nothing stays held", async () => {
    const { token, guildId, organisationId } = await seedGuild("What if, twenty at once");
    // Two agents: the batches go through two objects and meet only at the organisation's row.
    const recorded = [await recordedRun(token, guildId), await recordedRun(token, guildId)];
    const before = await month(token);
    // Each batch may cost 0.2 USD and a little (100,000 reply tokens at 2 USD per million and
    // its prompt): 0.7 USD of room fits three of them, never four.
    await setLimit(token, Number((before.spent + 0.7).toFixed(6)));
    const variant = model();
    // Each answer costs nearly its worst case (0.20001 USD) and is held back a moment, so the batches overlap.
    await script(
      variant,
      Array.from({ length: 20 }, () => ({ content: "Four.", delay_ms: 1_500, usage: { prompt_tokens: 10, completion_tokens: 100_000 } })),
    );

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const { runId, seq } = recorded[i % 2]!;
        return call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: variant, max_tokens: 100_000 }] } });
      }),
    );

    const accepted = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(accepted, JSON.stringify(answers.map((a) => a.status))).toHaveLength(3);
    for (const a of accepted) expect(a.json.data[0]).toMatchObject({ status: "completed", output_tokens: 100_000, cost_usd: "0.200010" });
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.json.error.code).toBe("usage.spend_limit");
      expect(r.json.error.message).toMatch(/monthly spend limit of .* USD.*; no model call was made$/);
    }
    // The refused batches called no model and stored nothing.
    expect(await modelRequests(variant)).toHaveLength(3);
    const after = await month(token);
    expect(after.spent).toBeCloseTo(before.spent + 3 * 0.20001, 6);
    expect(after.spent).toBeLessThanOrEqual(after.limit!);
    expect(await holds(organisationId)).toEqual({ reserved: 0, pending: 0 });
  }, 90_000);

  it("USAGE-005: a failed call lets its hold go, so the budget it held serves the next batch", async () => {
    const { token, guildId, organisationId } = await seedGuild("What if, a failed call");
    const { runId, seq } = await recordedRun(token, guildId);
    await setLimit(token, Number(((await month(token)).spent + 0.25).toFixed(6)));
    const [bad, good] = [model(), model()];
    await script(bad, [{ status: 500 }]);
    await script(good, [{ content: "fine", usage: { prompt_tokens: 10, completion_tokens: 10 } }]);
    // Each batch holds about 0.2 USD of the 0.25 left: the second fits only once the first let go.
    const failed = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: bad, max_tokens: 100_000 }] } });
    expect(failed.status).toBe(201);
    expect(failed.json.data[0]).toMatchObject({ status: "failed", cost_usd: "0.000000" });
    expect(await holds(organisationId)).toEqual({ reserved: 0, pending: 0 });
    const next = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: good, max_tokens: 100_000 }] } });
    expect(next.status, JSON.stringify(next.json)).toBe(201);
    expect(next.json.data[0].status).toBe("completed");
    // A batch whose worst case does not fit at all is refused with the figures, and calls nothing.
    const tooBig = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: good, max_tokens: 1_000_000 }] } });
    expect(tooBig.status).toBe(409);
    expect(tooBig.json.error).toMatchObject({ code: "usage.spend_limit", message: expect.stringMatching(/^The request could cost up to 2\.\d{6} USD/) });
    expect(await modelRequests(good)).toHaveLength(1);
  });

  it("USAGE-005: a hold whose process died stops counting after its time and is marked failed by the next reservation", async () => {
    const { token, guildId, organisationId } = await seedGuild("What if, a lost hold");
    const { runId, seq } = await recordedRun(token, guildId);
    await setLimit(token, Number(((await month(token)).spent + 0.25).toFixed(6)));
    const { db, close } = openDatabase(env);
    try {
      // Two holds left pending as a process that died mid-call leaves them: one past its time, one within it.
      const hold = (minutesAgo: number) => pendingHold({ organisationId, runId, seq }, "0.200000", minutesAgo);
      const [lost, live] = await db
        .insert(promptVariants)
        .values([hold(11), hold(1)])
        .returning({ id: promptVariants.id });
      const quick = model();
      await script(quick, [{ content: "ok", usage: { prompt_tokens: 10, completion_tokens: 10 } }]);
      // The live hold leaves 0.05 USD: a batch of 0.2 does not fit, one of 0.02 does; the lost hold counts for nothing.
      const big = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: quick, max_tokens: 100_000 }] } });
      expect(big.status).toBe(409);
      const small = await call("POST", variantsPath(runId, seq), { token, body: { variants: [{ model: quick, max_tokens: 10_000 }] } });
      expect(small.status, JSON.stringify(small.json)).toBe(201);
      const [lostRow] = await db.select().from(promptVariants).where(eq(promptVariants.id, lost!.id));
      expect(lostRow).toMatchObject({ status: "failed", reservedUsd: "0.000000", error: { code: "variant.interrupted" } });
      const [liveRow] = await db
        .select()
        .from(promptVariants)
        .where(and(eq(promptVariants.id, live!.id), eq(promptVariants.status, "pending")));
      expect(liveRow?.reservedUsd).toBe("0.200000");
      await db.delete(promptVariants).where(eq(promptVariants.id, live!.id));
    } finally {
      await close();
    }
    expect(await holds(organisationId)).toEqual({ reserved: 0, pending: 0 });
  });

  it("USAGE-005 / OP-USAGE-1: a generation counts the holds of variants in flight: with the budget held, its step is refused before any call", async () => {
    const { token, guildId, organisationId } = await seedGuild("What if, a generation beside");
    const { runId, seq, agent } = await recordedRun(token, guildId);
    await setLimit(token, Number(((await month(token)).spent + 0.1).toFixed(6)));
    await script(agent.model, [{ content: "after the hold", usage: { prompt_tokens: 10, completion_tokens: 10 } }]);
    const { db, close } = openDatabase(env);
    try {
      const [held] = await db
        .insert(promptVariants)
        .values(pendingHold({ organisationId, runId, seq }, "0.100000", 0))
        .returning({ id: promptVariants.id });
      await call("POST", `/api/runs/${runId}/messages`, { token, body: { content: "more" } });
      const refused = await settled(token, runId);
      expect(refused.errors.at(-1)).toMatchObject({ code: "usage.spend_limit" });
      expect(await modelRequests(agent.model)).toHaveLength(1);
      // The hold let go, the next message generates.
      await db.delete(promptVariants).where(eq(promptVariants.id, held!.id));
      await call("POST", `/api/runs/${runId}/messages`, { token, body: { content: "again" } });
      await settled(token, runId);
      expect((await rows(token, runId)).at(-1)!.payload.content).toBe("after the hold");
    } finally {
      await close();
    }
  });
});
