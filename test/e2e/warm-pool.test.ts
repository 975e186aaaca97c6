import { describe, expect, it } from "vitest";
import { agentIdle, script, transcript } from "./agents";
import { agentWithSecret, containerStack } from "./container-stack";
import { until } from "./sandbox-box";

/**
 * The warm pool on real containers (decision 0034): a stack of its own keeping one standard
 * box started, and coding agents (the shell tool's) whose first shell generation takes it. Boxes are told apart by their
 * hostname (the container's id), since a warm box's container was started before any agent's
 * secrets existed: they reach the box with the claim, not in the container's variables.
 */
const IDLE_MS = 6_000;
const boxes = containerStack({ SANDBOX_WARM_LITE: "0", SANDBOX_WARM_STANDARD: "1", SANDBOX_IDLE_MS: String(IDLE_MS) });
const { call, output } = boxes;

const logged = (operation: string) => output.filter((line) => line.includes(`"operation":"${operation}"`));
const ensureOf = (agentId: string) => logged("sandbox.ensure").filter((line) => line.includes(agentId) && line.includes("duration_ms"));

/** One generation running `command`; its output and the time from the user's row to the tool's result row. */
async function shell(agent: { agentId: string; model: string }, command: string) {
  await script(agent.model, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { content: "done" }], boxes.target);
  const run = await call("POST", `/api/agents/${agent.agentId}/runs`, { message: "run it" });
  expect(run.status, run.text).toBe(201);
  await agentIdle(agent.agentId, boxes.target, 120_000);
  const rows = await transcript(run.json.id, boxes.target);
  const user = rows.find((r) => r.role === "user")!;
  const tool = rows.find((r) => r.role === "tool")!;
  return { output: String(tool.payload.content), ms: Date.parse(tool.created_at) - Date.parse(user.created_at) };
}

/** Waits until the pool has started `count` boxes since the stack started. */
const warmStarted = (count: number) => until(`${count} warm box(es) started`, () => logged("sandbox.warm_started").length >= count, 120_000);

describe("the warm pool on real containers", () => {
  it("SBX-002 / SEC-005 / SBX-009: with the pool warm, an agent's first shell generation takes the waiting box, its command sees the agent's secret, and the pool starts another", async () => {
    // The stack's first request started the pool filling.
    await warmStarted(1);
    const agent = await agentWithSecret(call, "Warm", { coding: true });
    const first = await shell(agent, `printf '%s|%s\\n' "$${agent.secretName}" "$(hostname)"`);
    expect(first.output).toContain(`[REDACTED:${agent.secretName}]|`);
    expect(ensureOf(agent.agentId).at(-1)).toContain('"warm":true');
    console.log(`warm pool: message to the shell tool's result row ${first.ms} ms; ${ensureOf(agent.agentId).at(-1)}`);
    // The taken box is replaced behind it.
    await warmStarted(2);
  }, 240_000);

  it("SBX-034 / SBX-031: a box that held an agent never returns to the pool: destroyed when idle, and the next agent gets another box without the first one's secret", async () => {
    await warmStarted(1);
    const first = await agentWithSecret(call, "Held", { coding: true });
    const a = await shell(first, `printf '%s|%s\\n' "$${first.secretName}" "$(hostname)"`);
    const hostA = a.output.split("\n")[0]!.split("|")[1];
    // Its idle timer destroys it; nothing of it goes back.
    await until("the first agent's box to be destroyed", () => logged("sandbox.destroy").some((line) => line.includes(first.agentId)), IDLE_MS + 60_000);
    const second = await agentWithSecret(call, "Next", { coding: true });
    const b = await shell(second, `printf '%s|%s|%s\\n' "$${second.secretName}" "$(hostname)" "\${${first.secretName}:-unset}"`);
    const [secretB, hostB, leaked] = b.output.split("\n")[0]!.split("|");
    expect(secretB).toBe(`[REDACTED:${second.secretName}]`);
    expect(hostB).not.toBe(hostA);
    expect(leaked).toBe("unset");
  }, 300_000);
});
