/**
 * bench/coding: what scripts and repositories add to a generation, on real containers and
 * the stack's local forge.
 *
 * - scripts: an agent without coding keeps 10 scripts; its first script_run starts the lite
 *   box and materialises the folder (the object's `scripts.materialise` figure); then warm
 *   script_run calls, from the tool call's row to its result's row;
 * - repositories: a coding agent with one repository on the forge; the first generation
 *   mints a token, writes the identity, clones and takes the start checkpoint (the object's
 *   `repository.prepare`); later generations mint again and find the clone present; every
 *   generation ends with a checkpoint (`repository.checkpoint_end`).
 *
 *   npx tsx bench/coding.ts [--repeat 5]
 */
import { parseArgs } from "node:util";
import { claimInstallation } from "../scripts/forge/claim";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({ options: { repeat: { type: "string", default: "5" } } });
const REPEAT = Number(values.repeat);

const lines: string[] = [];
const bench = await benchStack({ output: (line) => lines.push(line) });
const { stack, api } = bench;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  if (!stack.containers.enabled || !stack.forge) throw new Error(`no container engine or forge: ${stack.containers.reason ?? "no forge"}`);
  const forge = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.forge!.adminUrl}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return (await res.json()) as any;
  };
  const guild = await api("POST", "/api/guilds", { name: "bench coding" });

  async function agent(settings: Record<string, unknown>) {
    const model = `bench-code-${crypto.randomUUID().slice(0, 8)}`;
    const created = await api("POST", `/api/guilds/${guild.id}/agents`, { name: "Bench", model, ...settings });
    return { id: created.id as string, model };
  }

  /** One generation making these tool calls; → ms from each call's assistant row to its result, and the whole generation. */
  async function generation(who: { id: string; model: string }, calls: Array<{ name: string; arguments: unknown }>) {
    await fetch(`${stack.mockModelUrl}/__script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: who.model, replies: [{ tool_calls: calls }, { content: "done" }] }),
    });
    const began = Date.now();
    const run = await api("POST", `/api/agents/${who.id}/runs`, { message: "go" });
    while ((await api("GET", `/api/agents/${who.id}/status`)).generating) await sleep(20);
    const totalMs = Date.now() - began;
    const rows = (await api("GET", `/api/runs/${run.id}/messages?limit=1000`)).data as Array<{ role: string; created_at: string; payload: any }>;
    const call = rows.find((r) => r.role === "assistant" && r.payload.tool_calls);
    const result = rows.findLast((r) => r.role === "tool");
    if (!call || !result) throw new Error(`the calls did not run: ${JSON.stringify(rows.slice(-2))}`);
    return { callMs: Date.parse(result.created_at) - Date.parse(call.created_at), totalMs, output: String(result.payload.content) };
  }

  /** Every logged figure of `operation` for this agent, in order. */
  const logged = (operation: string, agentId: string) =>
    lines
      .filter((l) => l.includes(`"operation":"${operation}"`) && l.includes(agentId))
      .map((l) => JSON.parse(l.slice(l.indexOf("{"))) as Record<string, number>);

  const firstScript: number[] = [];
  const materialise: number[] = [];
  const warmScript: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const scripter = await agent({ coding: false, max_scripts: 10 });
    for (let n = 0; n < 10; n++) {
      await api("POST", `/api/agents/${scripter.id}/scripts`, {
        name: `s${n}`,
        description: `script ${n}`,
        source: `import json, sys\nprint(${n}, json.load(sys.stdin))\n`,
      });
    }
    const first = await generation(scripter, [{ name: "script_run", arguments: { name: "s0" } }]);
    if (!first.output.includes("0 {}")) throw new Error(`script_run failed: ${first.output}`);
    firstScript.push(first.totalMs);
    materialise.push(logged("scripts.materialise", scripter.id)[0]?.duration_ms ?? Number.NaN);
    for (let j = 0; j < 4; j++) warmScript.push((await generation(scripter, [{ name: "script_run", arguments: { name: `s${j}`, arguments: { j } } }])).callMs);
  }

  const firstPrepare: number[] = [];
  const warmPrepare: number[] = [];
  const checkpoints: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const owner = `bench-${crypto.randomUUID().slice(0, 8)}`;
    const files = Object.fromEntries(Array.from({ length: 200 }, (_, n) => [`src/file${n}.ts`, `export const n${n} = ${n};\n`.repeat(20)]));
    await forge("POST", "/repos", { full_name: `${owner}/app`, private: true, files });
    const claimed = await claimInstallation(async (method, path, body) => ({ status: 201, json: await api(method, path, body) }), stack.forge.adminUrl, {
      account: owner,
      repositories: [`${owner}/app`],
    });
    const connection = claimed.connection.json;
    const codingGuild = await api("POST", "/api/guilds", { name: `bench coding ${i}` });
    await api("POST", `/api/guilds/${codingGuild.id}/repositories`, { full_name: `${owner}/app`, connection_id: connection.id });
    const model = `bench-repo-${crypto.randomUUID().slice(0, 8)}`;
    const coder = { id: (await api("POST", `/api/guilds/${codingGuild.id}/agents`, { name: "Coder", model, coding: true })).id as string, model };
    for (let g = 0; g < 4; g++) {
      const ran = await generation(coder, [{ name: "shell", arguments: { command: `echo ${g} >> notes.txt && git status --short | wc -l` } }]);
      if (!/^\d+/.test(ran.output.trim())) throw new Error(`shell failed: ${ran.output}`);
    }
    const prepared = logged("repository.prepare", coder.id).map((l) => l.duration_ms!);
    firstPrepare.push(prepared[0]!);
    warmPrepare.push(...prepared.slice(1));
    checkpoints.push(...logged("repository.checkpoint_end", coder.id).map((l) => l.duration_ms!));
  }

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const line = (name: string, xs: number[]) =>
    console.log(`${name.padEnd(58)} median ${quantile(sorted(xs), 0.5)} ms   p90 ${quantile(sorted(xs), 0.9)} ms   (n=${xs.length})`);
  console.log("\nscripts and repositories on real containers (local Docker engine, local forge)");
  line("first generation with one script_run (cold lite box)", firstScript);
  line("materialise 10 scripts into a new box", materialise);
  line("warm script_run (tool call row → result row)", warmScript);
  line("repository preparation, first generation (clone 200 files)", firstPrepare);
  line("repository preparation, later generations (token, present)", warmPrepare);
  line("end checkpoint (one repository)", checkpoints);
} finally {
  await bench.stop();
}
