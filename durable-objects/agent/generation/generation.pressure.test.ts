import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

const big = "lorem ipsum dolor sit amet ".repeat(150); // about 4 KB per result, above the floor
const READS = 6;

/** One generation: write a big note, read it READS times (one read per step), then reply. */
async function readMany(token: string, guildId: string, maxInputTokens: number) {
  const agent = await newAgent(token, guildId, { max_input_tokens: maxInputTokens });
  await script(agent.model, [
    { tool_calls: [toolCall("note_write", { title: "big", body: big })] },
    ...Array.from({ length: READS }, () => ({ tool_calls: [toolCall("note_read", { title: "big" })] })),
    { content: "read enough" },
  ]);
  const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "read it many times" } })).json;
  const after = await settled(token, run.id);
  return { agent, run, after, transcript: await rows(token, run.id), requests: await modelRequests(agent.model) };
}

describe("pressure stubbing", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("PROJ-008 / GEN-019 / PROJ-010: over the cap, the oldest large live results are stubbed until it fits; the choice is recorded and replays exactly", async () => {
    // Calibrate on an uncapped run: the last prompt's count and what one more read adds.
    const free = await readMany(token, guildId, 100_000);
    const counted = free.transcript.filter((r) => r.role === "assistant").map((r) => r.metadata.projection.prompt_tokens_counted as number);
    const last = counted.at(-1)!;
    const perRead = last - counted.at(-2)!;
    // A cap that needs about two of the six reads stubbed.
    const capped = await readMany(token, guildId, Math.round(last - 1.5 * perRead));
    expect(capped.after.errors).toEqual([]);
    const final = capped.transcript.filter((r) => r.role === "assistant").at(-1)!;
    expect(final.payload.content).toBe("read enough");
    const pressure = final.metadata.projection.pressure_stubbed as number[];
    expect(pressure.length).toBeGreaterThanOrEqual(1);
    const reads = capped.transcript.filter((r) => r.metadata.tool_name === "note_read").map((r) => r.seq);
    // Oldest first, and at least four large results stay live.
    expect(pressure).toEqual(reads.slice(0, pressure.length));
    expect(reads.length - pressure.length).toBeGreaterThanOrEqual(4);
    expect(final.metadata.projection.prompt_tokens_counted).toBeLessThanOrEqual(Math.round(last - 1.5 * perRead));
    const sent = capped.requests.at(-1)!.body.messages as Array<{ tool_call_id?: string; content: string }>;
    const idOf = (seq: number) => capped.transcript.find((r) => r.seq === seq)!.payload.tool_call_id;
    for (const seq of pressure) expect(sent.find((m) => m.tool_call_id === idOf(seq))!.content).toMatch(/^\[tool result stubbed\]/);
    const replay = await call("GET", `/api/runs/${capped.run.id}/messages/${final.seq}/prompt`, { token });
    expect(replay.json.matches).toBe(true);
    expect(replay.json.messages).toEqual(sent);
  });

  it("GEN-020 / PROJ-008: when four large results remain and it still does not fit, the model is not called", async () => {
    const free = await readMany(token, guildId, 100_000);
    const counted = free.transcript.filter((r) => r.role === "assistant").map((r) => r.metadata.projection.prompt_tokens_counted as number);
    const perRead = counted.at(-1)! - counted.at(-2)!;
    const capped = await readMany(token, guildId, Math.round(counted.at(-1)! - 4 * perRead));
    expect(capped.after.status).toBe("completed");
    expect(capped.after.errors.map((e: { code: string }) => e.code)).toEqual(["generation.max_input_tokens"]);
    expect(capped.requests.length).toBeLessThan(READS + 2);
  });
});
