/**
 * bench/sandbox: the agent's box on real containers (a local stack with the engine on).
 *
 * - cold ensure: a coding agent's first generation creates its box; the object's own figure
 *   (`sandbox.ensure` duration: start, guest health, home restore, services) and the first
 *   command's whole generation;
 * - warm command: one `shell` call on a running box, from the tool call's row to its result's
 *   row (Worker → agent object → Container object → guest → bash and back, then the commit);
 * - home save and restore: a home holding 10 MB and 200 MB of incompressible data is saved to
 *   the bucket when the idle timer destroys the box, then restored by the next generation's
 *   ensure (figures the object logs: `save_ms`, `restore_ms`).
 *
 * - with `--warm 1`, the warm pool keeps one standard box started (SANDBOX_WARM_STANDARD) and
 *   each agent's first generation takes it; the bench waits for the pool to refill before
 *   each agent, as a user arriving a little later would find it.
 * The first generation is also timed as a user sees it: from the message's row to the shell
 * tool's result row.
 *
 *   npx tsx bench/sandbox.ts [--repeat 5] [--warm 1] [--homes false]
 */
import { parseArgs } from "node:util";
import { benchStack, quantile } from "./bench-stack";

const { values } = parseArgs({
  options: { repeat: { type: "string", default: "5" }, warm: { type: "string", default: "0" }, homes: { type: "string", default: "true" } },
});
const REPEAT = Number(values.repeat);
const WARM = Number(values.warm);
const IDLE_MS = 3_000;

const lines: string[] = [];
const bench = await benchStack({
  vars: { SANDBOX_IDLE_MS: String(IDLE_MS), SANDBOX_WARM_STANDARD: String(WARM), SANDBOX_WARM_LITE: "0" },
  output: (line) => lines.push(line),
});
const { stack, api } = bench;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  if (!stack.containers.enabled) throw new Error(`no container engine: ${stack.containers.reason}`);
  const guild = await api("POST", "/api/guilds", { name: "bench sandbox" });

  /** A new coding agent, with a model name of its own for the mock's scripts. */
  async function codingAgent() {
    const model = `bench-sbx-${crypto.randomUUID().slice(0, 8)}`;
    const agent = await api("POST", `/api/guilds/${guild.id}/agents`, { name: "Coder", model, coding: true });
    return { id: agent.id as string, model };
  }

  /** One generation that runs `command` with the shell tool; → ms from the tool call's row to its result's row. */
  async function shell(
    agent: { id: string; model: string },
    command: string,
  ): Promise<{ commandMs: number; totalMs: number; messageToResultMs: number; output: string }> {
    await fetch(`${stack.mockModelUrl}/__script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: agent.model, replies: [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { content: "done" }] }),
    });
    const began = Date.now();
    const run = await api("POST", `/api/agents/${agent.id}/runs`, { message: "go" });
    for (;;) {
      const status = await api("GET", `/api/agents/${agent.id}/status`);
      if (!status.generating) break;
      await sleep(20);
    }
    const totalMs = Date.now() - began;
    const rows = (await api("GET", `/api/runs/${run.id}/messages?limit=1000`)).data as Array<{ role: string; created_at: string; payload: any }>;
    const call = rows.find((r) => r.role === "assistant" && r.payload.tool_calls);
    const result = rows.find((r) => r.role === "tool");
    const message = rows.findLast((r) => r.role === "user");
    if (!call || !result || !message) throw new Error(`the shell call did not run: ${JSON.stringify(rows.slice(-2))}`);
    return {
      commandMs: Date.parse(result.created_at) - Date.parse(call.created_at),
      totalMs,
      messageToResultMs: Date.parse(result.created_at) - Date.parse(message.created_at),
      output: String(result.payload.content),
    };
  }

  /** The last log entry of `operation` for this agent. */
  function logged(operation: string, agentId: string): Record<string, number> {
    const line = lines.findLast((l) => l.includes(`"operation":"${operation}"`) && l.includes(agentId));
    if (!line) throw new Error(`no ${operation} logged for ${agentId}`);
    return JSON.parse(line.slice(line.indexOf("{")));
  }

  async function untilLogged(operation: string, agentId: string, count: number, timeoutMs = 120_000) {
    const deadline = Date.now() + timeoutMs;
    const seen = () => lines.filter((l) => l.includes(`"operation":"${operation}"`) && l.includes(agentId)).length;
    while (seen() < count) {
      if (Date.now() > deadline) throw new Error(`no ${operation} #${count} for ${agentId} within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  const warmStarted = () => lines.filter((l) => l.includes('"operation":"sandbox.warm_started"')).length;
  const cold: number[] = [];
  const coldGeneration: number[] = [];
  const firstResult: number[] = [];
  const warm: number[] = [];
  let tookWarm = 0;
  for (let i = 0; i < REPEAT; i++) {
    if (WARM > 0) {
      const deadline = Date.now() + 120_000;
      while (warmStarted() < WARM + i) {
        if (Date.now() > deadline) throw new Error(`the pool did not refill (${warmStarted()} warm boxes started)`);
        await sleep(100);
      }
    }
    const agent = await codingAgent();
    const first = await shell(agent, "true");
    await untilLogged("sandbox.ensure", agent.id, 1);
    const ensure = logged("sandbox.ensure", agent.id) as Record<string, unknown>;
    if (ensure.warm === true) tookWarm++;
    cold.push(ensure.duration_ms as number);
    coldGeneration.push(first.totalMs);
    firstResult.push(first.messageToResultMs);
    for (let j = 0; j < 4; j++) warm.push((await shell(agent, "echo warm")).commandMs);
  }

  const homes: Array<{ mb: number; saveMs: number; savedMb: number; restoreMs: number; ensureMs: number }> = [];
  for (const mb of values.homes === "false" ? [] : [10, 200]) {
    const agent = await codingAgent();
    const wrote = await shell(agent, `head -c ${mb}M /dev/urandom > /home/agent/blob && du -sm /home/agent/blob`);
    if (!wrote.output.includes("blob")) throw new Error(`writing the home failed: ${wrote.output}`);
    await untilLogged("sandbox.destroy", agent.id, 1, IDLE_MS + 300_000);
    const destroyed = logged("sandbox.destroy", agent.id);
    await shell(agent, "true");
    await untilLogged("sandbox.ensure", agent.id, 2);
    const restored = logged("sandbox.ensure", agent.id);
    homes.push({ mb, saveMs: destroyed.save_ms!, savedMb: destroyed.saved_bytes! / 2 ** 20, restoreMs: restored.restore_ms!, ensureMs: restored.duration_ms! });
  }

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const line = (name: string, xs: number[]) =>
    console.log(`${name.padEnd(44)} median ${quantile(sorted(xs), 0.5)} ms   p90 ${quantile(sorted(xs), 0.9)} ms   (n=${xs.length})`);
  console.log(`\nsandbox on real containers (lite/standard images, local Docker engine); warm pool ${WARM}, ${tookWarm} of ${REPEAT} first boxes taken warm`);
  line(`${WARM > 0 ? "first" : "cold"} ensure (object: ${WARM > 0 ? "claim" : "start"} → guest → services)`, cold);
  line("first generation with one shell call", coldGeneration);
  line("first generation: message row → shell result row", firstResult);
  line("warm shell command (tool call row → result row)", warm);
  for (const h of homes) {
    console.log(
      `home ${String(h.mb).padStart(3)} MB: save ${h.saveMs} ms (archive ${h.savedMb.toFixed(1)} MiB), restore ${h.restoreMs} ms, whole ensure with restore ${h.ensureMs} ms`,
    );
  }
} finally {
  await bench.stop();
}
