/**
 * bench/generation-step: the cost of one generation step as history grows.
 *
 * On a local stack (wrangler dev, the agent object, Postgres through the Neon driver),
 * with the mock model answering at once and one tool call per step, it measures the
 * wall time between consecutive committed assistant rows at about 1k, 20k and 100k
 * tokens of history, and the Postgres round trips per step (counted at the Neon
 * WebSocket proxy), and workerd's CPU time per step (Linux: its threads' run time
 * between the second and the last model call, which wall time under load hides). In the
 * same run it measures a floor: a bare loop that sends the same prompt to the mock and
 * commits one row in one round trip, with the same driver. Each step's time is also split
 * at the arrivals of its model call and its Postgres messages (model call → assistant row →
 * the tool's query → tool row → next call).
 *
 *   npx tsx bench/generation-step.ts [--steps 20] [--reply-chars 0]
 *   BENCH_SIZES=1000,100000 BENCH_PROFILE=/tmp/step npx tsx bench/generation-step.ts  # /tmp/step-<tokens>.cpuprofile
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { neonConfig, Pool } from "@neondatabase/serverless";
import { WebSocket } from "ws";
import { useLocalProxy } from "../core/db/client";
import { packageRanks } from "../core/projection/package-ranks";
import { countRowTokens, prepareTokenCounter } from "../core/projection/token-count";
import type { ChatPayload } from "../core/projection/types";
import { composeSystemPrompt } from "../core/prompt/system-prompt";
import { buildSnapshot, type OfferedTool } from "../core/runs/snapshot";
import { offeredTools, toolSchemas } from "../core/tools/registry";
import { benchStack, quantile } from "./bench-stack";
import { cpuMs, profileWorker, workerdPids } from "./workerd-cpu";

const { values } = parseArgs({ options: { steps: { type: "string", default: "20" }, "reply-chars": { type: "string", default: "0" } } });
const STEPS = Number(values.steps);
/** Text each step's reply streams beside its tool call (in the mock's 12-character deltas), redacted as it goes. */
const REPLY_CHARS = Number(values["reply-chars"]);
const replyText = "The model explains what it does next, in ordinary words and numbers 42. ".repeat(Math.ceil(REPLY_CHARS / 73)).slice(0, REPLY_CHARS);
const SIZES = (process.env.BENCH_SIZES ?? "1000,20000,100000").split(",").map(Number);

const bench = await benchStack({ countRoundTrips: true });
// The seeded history is counted as the agent object counts it: with the o200k table.
await prepareTokenCounter(packageRanks);
const { stack, db, api, stateDir } = bench;

const mock = (path: string, body?: unknown) =>
  fetch(`${stack.mockModelUrl}${path}`, {
    method: body ? "POST" : "GET",
    headers: { "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  }).then((r) => r.json() as Promise<any>);

/** Creates a run directly in Postgres with `tokens` of text history (never stubbed) in generation 1. */
async function runWithHistory(agentId: string, tokens: number): Promise<string> {
  const {
    rows: [agent],
  } = await db.query("select * from agents where id = $1", [agentId]);
  const row = {
    ...agent,
    modelBaseUrl: null,
    modelApiKeySecret: null,
    thinkingLevel: "off",
    maxSteps: agent.max_steps,
    maxToolCalls: agent.max_tool_calls,
    maxInputTokens: agent.max_input_tokens,
    keepToolResultGenerations: 1,
    projectionPolicyVersion: 1,
    browserLanguage: "en-US",
  };
  const snapshot = buildSnapshot(row, toolSchemas(offeredTools({ kind: "direct" })) as OfferedTool[]);
  const {
    rows: [run],
  } = await db.query("insert into runs (agent_id, kind, snapshot, generation) values ($1, 'direct', $2, 1) returning id", [agentId, JSON.stringify(snapshot)]);
  const system: ChatPayload = {
    role: "system",
    content: composeSystemPrompt({
      agent: { name: "Bench", instructions: "" },
      now: new Date(),
      maxToolCalls: 1000,
      kind: "direct",
      notes: [],
      secrets: [],
      memory: { enabled: false, content: "" },
    }),
  };
  const history: Array<{ payload: ChatPayload; generation: number | null }> = [{ payload: system, generation: null }];
  let total = countRowTokens(system, {});
  const paragraph = "The quick brown fox jumps over the lazy dog while the agent keeps notes on its findings. ";
  for (let i = 0; total < tokens; i++) {
    const payload: ChatPayload = i % 2 === 0 ? { role: "user", content: paragraph.repeat(40) } : { role: "assistant", content: paragraph.repeat(40) };
    history.push({ payload, generation: 1 });
    total += countRowTokens(payload, {});
  }
  for (const [seq, h] of history.entries()) {
    await db.query("insert into messages (run_id, seq, generation, role, payload, metadata, token_count) values ($1, $2, $3, $4, $5, '{}', $6)", [
      run.id,
      seq,
      h.generation,
      h.payload.role,
      JSON.stringify(h.payload),
      countRowTokens(h.payload, {}),
    ]);
  }
  return run.id;
}

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
};

async function measurePlatform(guildId: string, tokens: number) {
  const model = `bench-${tokens}-${Date.now()}`;
  const agent = await api("POST", `/api/guilds/${guildId}/agents`, {
    name: `bench ${tokens}`,
    model,
    max_steps: STEPS + 5,
    max_tool_calls: 1000,
    max_input_tokens: 400_000,
  });
  const runId = await runWithHistory(agent.id, tokens);
  await mock("/__script", {
    model,
    replies: [
      ...Array.from({ length: STEPS }, () => ({ ...(REPLY_CHARS ? { content: replyText } : {}), tool_calls: [{ name: "note_list", arguments: {} }] })),
      { content: "done" },
    ],
  });
  const pids = workerdPids(stateDir);
  let profile: Awaited<ReturnType<typeof profileWorker>> | null = null;
  let cpuProfile: unknown = null;
  await api("POST", `/api/runs/${runId}/messages`, { content: "go" });
  // workerd's CPU from the second model call to the last: the steps between, without the run's opening.
  const cpu: Array<{ calls: number; ms: number }> = [];
  for (let calls = 0; calls < STEPS + 1; await new Promise((r) => setTimeout(r, 2))) {
    calls = (await mock(`/__requests/count?model=${model}`)).count;
    if (calls >= 2 && cpu.length === 0) {
      cpu.push({ calls, ms: cpuMs(pids) });
      // BENCH_PROFILE=<prefix>: a CPU profile of the Worker's isolate over the same steps, <prefix>-<tokens>.cpuprofile.
      if (process.env.BENCH_PROFILE) profile = await profileWorker(pids, "guilds-platform");
    } else if (calls === STEPS + 1) {
      cpu.push({ calls, ms: cpuMs(pids) });
      cpuProfile = await profile?.stop();
    }
  }
  while ((await api("GET", `/api/runs/${runId}`)).generating) await new Promise((r) => setTimeout(r, 50));
  if (cpuProfile) writeFileSync(`${process.env.BENCH_PROFILE}-${tokens}.cpuprofile`, JSON.stringify(cpuProfile));
  const { rows } = await db.query("select role, created_at from messages where run_id = $1 and role = 'assistant' and generation = 2 order by seq", [runId]);
  const times = rows.map((r: { created_at: Date }) => r.created_at.getTime());
  const steps = times.slice(1).map((t: number, i: number) => t - times[i]!);
  if (process.env.BENCH_DEBUG) {
    const { rows: meta } = await db.query(
      "select role, created_at, metadata->'timings' as t, metadata->>'duration_ms' as d from messages where run_id = $1 and generation = 2 order by seq",
      [runId],
    );
    console.log(tokens, steps, meta.map((m: any) => `${m.role} ${m.created_at.getTime() % 100000} ${JSON.stringify(m.t)} ${m.d}`).join("\n"));
  }
  const inWindow = stack.roundTrips.filter((t) => t > times[0]! && t <= times.at(-1)!).length;
  const requests = (await mock(`/__requests?model=${model}`)).requests;
  // Where a step's time goes: from each model call (its arrival at the mock) to each Postgres
  // message after it (arrivals at the proxy) and to the next call; medians over the steps with
  // exactly three messages (the assistant row, the tool's query, the tool row).
  const calls = requests.map((r: { received_at: string }) => Date.parse(r.received_at));
  const legs: number[][] = [[], [], [], []];
  for (let i = 1; i + 1 < calls.length; i++) {
    const between = stack.roundTrips.filter((t) => t >= calls[i]! && t < calls[i + 1]!);
    if (between.length !== 3) continue;
    const marks = [calls[i]!, ...between, calls[i + 1]!];
    for (let k = 0; k < 4; k++) legs[k]!.push(marks[k + 1]! - marks[k]!);
  }
  const stretches = legs.map((xs) => stats(xs).median);
  const lastPrompt = requests.at(-1).body;
  const [from, to] = [cpu[0]!, cpu.at(-1)!];
  const cpuPerStep = pids.length && to.calls > from.calls ? (to.ms - from.ms) / (to.calls - from.calls) : Number.NaN;
  return { ...stats(steps), roundTrips: inWindow / steps.length, cpuPerStep, stretches, lastPrompt, promptBytes: JSON.stringify(lastPrompt).length };
}

/** The floor: the same prompt to the mock, then one INSERT in one round trip, with the same driver. */
async function measureFloor(prompt: any, runId: string) {
  neonConfig.webSocketConstructor = WebSocket as never;
  const proxyAddress = (await import("node:fs")).readFileSync(join(stateDir, "worker.env"), "utf8").match(/NEON_WS_PROXY=['"]([^'"]+)['"]/)![1]!;
  useLocalProxy(proxyAddress);
  const pool = new Pool({ connectionString: stack.databaseUrl, max: 1 });
  pool.on("error", () => {});
  await pool.query("select 1");
  const body = JSON.stringify({ ...prompt, model: "floor-model", stream: true, stream_options: { include_usage: true } });
  const times: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const started = performance.now();
    const res = await fetch(`${stack.mockModelUrl}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
    await res.text();
    await pool.query("insert into messages (run_id, seq, generation, role, payload, metadata, token_count) values ($1, $2, 1, 'assistant', $3, '{}', 10)", [
      runId,
      100_000 + i,
      JSON.stringify({ role: "assistant", content: "floor" }),
    ]);
    times.push(performance.now() - started);
  }
  await pool.end();
  return stats(times);
}

try {
  const guild = await api("POST", "/api/guilds", { name: "bench" });
  const results: string[] = [];
  const medians: Record<number, { step: number; floor: number }> = {};
  for (const tokens of SIZES) {
    const platform = await measurePlatform(guild.id, tokens);
    const {
      rows: [scratch],
    } = await db.query("select id from runs order by created_at desc limit 1");
    const floor = await measureFloor(platform.lastPrompt, scratch.id);
    medians[tokens] = { step: platform.median, floor: floor.median };
    results.push(
      `${String(tokens).padStart(7)} tokens | step median ${platform.median.toFixed(1)} ms, p90 ${platform.p90.toFixed(1)} ms | ` +
        `floor median ${floor.median.toFixed(1)} ms, p90 ${floor.p90.toFixed(1)} ms | step/floor ${(platform.median / floor.median).toFixed(2)} | ` +
        `round trips per step ${platform.roundTrips.toFixed(2)} | workerd CPU per step ${platform.cpuPerStep.toFixed(1)} ms | ` +
        `call→row→query→row→call ${platform.stretches.join(" / ")} ms | prompt ${(platform.promptBytes / 1024).toFixed(0)} KiB`,
    );
  }
  const text = REPLY_CHARS ? ` and ${REPLY_CHARS} characters of streamed text` : "";
  console.log(`generation-step: ${STEPS} steps per size, one tool call (note_list)${text} per step, mock model answering at once`);
  for (const line of results) console.log(line);
  if (medians[100_000] && medians[1_000]) console.log(`ratio 100k/1k (step medians): ${(medians[100_000].step / medians[1_000].step).toFixed(2)}`);
} finally {
  await bench.stop();
}
