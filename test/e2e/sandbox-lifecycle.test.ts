import { describe, expect, it } from "vitest";
import { agentIdle, readRun, script, transcript } from "./agents";
import { agentWithSecret, containerStack } from "./container-stack";
import { boxesWithVariable, socket, until } from "./sandbox-box";

/**
 * The sandbox lifecycle on real containers: a stack of its own with the engine on and a
 * short idle time (SANDBOX_IDLE_MS), driven through the API and the mock model's shell
 * calls, with the boxes checked in the container engine itself.
 */
const IDLE_MS = 8_000;

const boxes = containerStack({ SANDBOX_IDLE_MS: String(IDLE_MS) });
const { call, output } = boxes;

/** A coding agent with one secret of its own (its name tells the agent's box apart). */
const codingAgent = (settings: Record<string, unknown> = {}) => agentWithSecret(call, "Coder", { coding: true, ...settings });

/** One generation that runs `command` through the shell tool; returns the run and the tool's answer. */
async function shell(agent: { agentId: string; model: string }, command: string) {
  await script(agent.model, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { content: "done" }], boxes.target);
  const started = Date.now();
  const run = await call("POST", `/api/agents/${agent.agentId}/runs`, { message: "run it" });
  expect(run.status, run.text).toBe(201);
  await agentIdle(agent.agentId, boxes.target, 120_000);
  const rows = await transcript(run.json.id, boxes.target);
  const tool = rows.find((r) => r.role === "tool");
  return {
    runId: run.json.id as string,
    output: (tool?.payload.content ?? "") as string,
    ms: Date.now() - started,
    run: await readRun(run.json.id, boxes.target),
  };
}

const deadlineNames = async (agentId: string) =>
  ((await call("GET", `/api/agents/${agentId}/status`)).json.deadlines as Array<{ name: string }>).map((d) => d.name);

/** The figure the object logs for each ensure (durations of cold starts). */
const ensureDurations = (agentId: string) =>
  output
    .filter((line) => line.includes('"operation":"sandbox.ensure"') && line.includes(agentId) && line.includes("duration_ms"))
    .map((line) => Number(/"duration_ms":(\d+)/.exec(line)?.[1]));

describe("sandbox lifecycle on real containers", () => {
  it("GEN-007 / SBX-002 / SEC-005 / SBX-006 / SBX-008: a coding agent's first generation creates its box with each secret as a variable, HOME and root", async () => {
    const agent = await codingAgent();
    expect(boxesWithVariable(agent.secretName)).toEqual([]);
    const first = await shell(agent, `printf '%s|%s|%s|%s\\n' "$${agent.secretName}" "$HOME" "$(whoami)" "$GUILD_AGENT_ID"`);
    // The value reached the command (the output names it redacted, SEC-014), never the transcript.
    expect(first.output).toContain(`[REDACTED:${agent.secretName}]|/home/agent|root|${agent.agentId}`);
    expect(JSON.stringify(await transcript(first.runId, boxes.target))).not.toContain(agent.value);
    expect(boxesWithVariable(agent.secretName)).toHaveLength(1);
    const [cold] = ensureDurations(agent.agentId);
    expect(cold).toBeGreaterThan(0);
    console.log(`cold ensure ${cold} ms; first generation with one shell call ${first.ms} ms`);
  }, 120_000);

  it("SBX-028 / SBX-029 / SBX-031 / SBX-032: the idle timer starts when a generation ends, a generation cancels it, it destroys the box, the next generation recreates it", async () => {
    const agent = await codingAgent();
    await shell(agent, "true");
    const [box] = boxesWithVariable(agent.secretName);
    expect(box).toBeDefined();
    expect(await deadlineNames(agent.agentId)).toContain("sandbox.idle");
    // During a generation there is no idle timer (SBX-029).
    await script(agent.model, [{ tool_calls: [{ name: "shell", arguments: { command: "sleep 3" } }] }, { content: "done" }], boxes.target);
    await call("POST", `/api/agents/${agent.agentId}/runs`, { message: "wait" });
    await until("the generation to start", async () => (await call("GET", `/api/agents/${agent.agentId}/status`)).json.generating === true);
    expect(await deadlineNames(agent.agentId)).not.toContain("sandbox.idle");
    await agentIdle(agent.agentId, boxes.target, 60_000);
    expect(await deadlineNames(agent.agentId)).toContain("sandbox.idle");
    expect(boxesWithVariable(agent.secretName)).toEqual([box]);
    // Idle for SANDBOX_IDLE_MS: destroyed (SBX-031).
    await until("the idle box to be destroyed", () => boxesWithVariable(agent.secretName).length === 0, IDLE_MS + 30_000);
    expect(await deadlineNames(agent.agentId)).not.toContain("sandbox.idle");
    // The next generation recreates it (SBX-032).
    const again = await shell(agent, "echo back");
    expect(again.output).toContain("back");
    const [recreated] = boxesWithVariable(agent.secretName);
    expect(recreated).toBeDefined();
    expect(recreated).not.toBe(box);
  }, 180_000);

  it("SEC-009 / SEC-010 / SBX-010 / SBX-038: a secret change destroys the idle box; the next generation recreates it with the new value", async () => {
    const agent = await codingAgent();
    await shell(agent, "true");
    const [box] = boxesWithVariable(agent.secretName);
    expect(box).toBeDefined();
    const changed = await call("PATCH", `/api/secrets/${agent.secretId}`, { value: "x".repeat(37) });
    expect(changed.status, changed.text).toBe(200);
    // Destroyed by the change itself, well before the idle timer.
    await until("the box to be destroyed after the secret change", () => boxesWithVariable(agent.secretName).length === 0, 5_000);
    const after = await shell(agent, `echo "length=\${#${agent.secretName}}"`);
    expect(after.output).toContain("length=37");
    expect(boxesWithVariable(agent.secretName)).toHaveLength(1);
  }, 120_000);

  it("SEC-009 / SEC-020: a secret change while the agent generates keeps its environment; the box is destroyed before the lock is released", async () => {
    const agent = await codingAgent();
    await script(
      agent.model,
      [{ tool_calls: [{ name: "shell", arguments: { command: `sleep 3; echo "length=\${#${agent.secretName}}"` } }] }, { content: "done" }],
      boxes.target,
    );
    const run = await call("POST", `/api/agents/${agent.agentId}/runs`, { message: "work" });
    await until("the box to start", () => boxesWithVariable(agent.secretName).length === 1, 60_000);
    expect((await call("PATCH", `/api/secrets/${agent.secretId}`, { value: "y".repeat(5) })).status).toBe(200);
    // Not destroyed under the running command.
    expect(boxesWithVariable(agent.secretName)).toHaveLength(1);
    await agentIdle(agent.agentId, boxes.target, 60_000);
    const rows = await transcript(run.json.id, boxes.target);
    expect(rows.find((r) => r.role === "tool")?.payload.content).toContain(`length=${agent.value.length}`);
    // Gone by the time the agent reads as idle: destroyed before the lock was released.
    expect(boxesWithVariable(agent.secretName)).toEqual([]);
    expect(await deadlineNames(agent.agentId)).not.toContain("sandbox.idle");
  }, 120_000);

  it("SBX-022: turning browser access on destroys the idle box", async () => {
    const agent = await codingAgent();
    await shell(agent, "true");
    expect(boxesWithVariable(agent.secretName)).toHaveLength(1);
    expect((await call("PATCH", `/api/agents/${agent.agentId}`, { browser_language: "de-DE" })).status).toBe(200);
    // browser_language alone, with browser off, changes nothing.
    expect(boxesWithVariable(agent.secretName)).toHaveLength(1);
    expect((await call("PATCH", `/api/agents/${agent.agentId}`, { browser: true })).status).toBe(200);
    expect(boxesWithVariable(agent.secretName)).toEqual([]);
  }, 120_000);

  it("SBX-040 / SBX-041 / GEN-026: the workspace is measured after each generation; over the limit the next generation fails at start with workspace.full", async () => {
    const agent = await codingAgent({ max_workspace_mib: 1 });
    await shell(agent, "head -c 3000000 /dev/zero > /home/agent/big.bin && echo written");
    expect((await call("GET", `/api/agents/${agent.agentId}`)).json.workspace_mib).toBe(3);
    // Nothing scripted: the generation must fail before any model call.
    const full = await call("POST", `/api/agents/${agent.agentId}/runs`, { message: "again" });
    await agentIdle(agent.agentId, boxes.target, 60_000);
    const run = await readRun(full.json.id, boxes.target);
    expect(run.errors.map((e: { code: string }) => e.code)).toEqual(["workspace.full"]);
    expect(run.errors[0].message).toContain("3 MiB, above its limit of 1 MiB");
    // A higher limit lets the agent work again.
    expect((await call("PATCH", `/api/agents/${agent.agentId}`, { max_workspace_mib: 10 })).status).toBe(200);
    const ok = await shell(agent, "rm /home/agent/big.bin && echo removed");
    expect(ok.output).toContain("removed");
    // What is left is the agent's git identity (~/.gitconfig), under one MiB.
    expect((await call("GET", `/api/agents/${agent.agentId}`)).json.workspace_mib).toBeLessThanOrEqual(1);
  }, 180_000);

  it("SEC-007 / SEC-009: granting, describing, revoking and deleting another secret of the agent each destroy its idle box", async () => {
    const agent = await codingAgent();
    const other = await call("POST", "/api/secrets", { name: `OTHER_${agent.secretName}`, value: "other-value" });
    expect(other.status, other.text).toBe(201);
    const changes: Array<[string, () => Promise<{ status: number }>]> = [
      ["a grant", () => call("POST", `/api/secrets/${other.json.id}/grants`, { agent_id: agent.agentId })],
      ["a new description", () => call("PATCH", `/api/secrets/${other.json.id}`, { description: "changed" })],
      [
        "a revocation",
        async () => {
          const grants = (await call("GET", `/api/secrets/${other.json.id}`)).json.grants as Array<{ id: string }>;
          return call("DELETE", `/api/secrets/${other.json.id}/grants/${grants[0]!.id}`);
        },
      ],
      ["a new grant", () => call("POST", `/api/secrets/${other.json.id}/grants`, { agent_id: agent.agentId })],
      ["a deletion", () => call("DELETE", `/api/secrets/${other.json.id}`)],
    ];
    for (const [change, make] of changes) {
      await shell(agent, "true");
      expect(boxesWithVariable(agent.secretName), `box before ${change}`).toHaveLength(1);
      expect((await make()).status, change).toBeLessThan(300);
      await until(`the box to be destroyed after ${change}`, () => boxesWithVariable(agent.secretName).length === 0, 5_000);
    }
  }, 180_000);

  it("CANCEL-001 / CANCEL-004 / SBX-033: cancelling a generation kills its command in the box; the box and its other processes stay", async () => {
    const agent = await codingAgent();
    await shell(agent, "nohup sleep 300 >/dev/null 2>&1 & echo started");
    await script(agent.model, [{ tool_calls: [{ name: "shell", arguments: { command: "sleep 120; echo never" } }] }], boxes.target);
    const run = await call("POST", `/api/agents/${agent.agentId}/runs`, { message: "long" });
    await until("the command to run", async () => (await transcript(run.json.id, boxes.target)).some((r) => r.role === "assistant"), 30_000);
    await new Promise((r) => setTimeout(r, 1_000));
    const cancelled = await call("POST", `/api/runs/${run.json.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    await agentIdle(agent.agentId, boxes.target, 30_000);
    // The box's processes, from /proc (the image need not have procps).
    const after = await shell(agent, `for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < "$f"; echo; done 2>/dev/null | grep '^sleep' || true`);
    expect(after.output).not.toContain("sleep 120");
    // A process started by an earlier generation on purpose keeps running (SBX-033).
    expect(after.output).toContain("sleep 300");
  }, 120_000);

  it("SBX-036 / SBX-005 / SBX-037: files under /home/agent survive the box's recreation; files elsewhere end with the box", async () => {
    const agent = await codingAgent();
    await shell(agent, "mkdir -p /home/agent/notes && echo kept > /home/agent/notes/a.txt && echo lost > /tmp/b.txt");
    expect((await call("PATCH", `/api/secrets/${agent.secretId}`, { value: "rotated-value" })).status).toBe(200);
    await until("the box to be destroyed", () => boxesWithVariable(agent.secretName).length === 0, 10_000);
    const after = await shell(agent, "cat /home/agent/notes/a.txt; cat /tmp/b.txt 2>&1 || true");
    expect(after.output).toContain("kept");
    expect(after.output).toContain("No such file");
  }, 120_000);

  it("SBX-030 / SBX-031 / UI-015: an open CLI tab whose socket keeps talking does not keep the box alive; the idle timer destroys it", async () => {
    const agent = await codingAgent();
    const started = await call("POST", `/api/agents/${agent.agentId}/cli/start`);
    expect(started.status, started.text).toBe(200);
    const [box] = boxesWithVariable(agent.secretName);
    expect(box).toBeDefined();
    const { ws } = await socket(`${started.json.tty_url}ws`, boxes.stack.apiUrl);
    const closed = new Promise<void>((resolve) => ws.addEventListener("close", () => resolve(), { once: true }));
    // The tab stays open and its socket busy (resizes, as a browser window sends): not operator input.
    const chatter = setInterval(() => ws.send(JSON.stringify({ type: "resize", cols: 80 + Math.floor(Math.random() * 20), rows: 24 })), 1_000);
    try {
      await until("the idle box to be destroyed under an open tab", () => boxesWithVariable(agent.secretName).length === 0, IDLE_MS + 30_000);
      await Promise.race([
        closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error("the view's socket stayed open after its box was destroyed")), 15_000)),
      ]);
    } finally {
      clearInterval(chatter);
      ws.close();
    }
  }, 120_000);

  it("SBX-001 / RUN-021 / SBX-033: two runs of one agent share its one box and its home", async () => {
    const agent = await codingAgent();
    const first = await shell(agent, "echo from-first-run > /home/agent/shared.txt; cat /proc/sys/kernel/hostname");
    const second = await shell(agent, "cat /home/agent/shared.txt; cat /proc/sys/kernel/hostname");
    expect(second.runId).not.toBe(first.runId);
    expect(second.output).toContain("from-first-run");
    // The same container answered both runs.
    const host = (output: string) => output.trim().split("\n").at(-1);
    expect(host(second.output)).toBe(host(first.output));
    expect(boxesWithVariable(agent.secretName)).toHaveLength(1);
  }, 120_000);

  it("SBX-027 / SEC-016: the CLI tab's shell runs as root with the box's environment, secrets included", async () => {
    const agent = await codingAgent();
    const started = await call("POST", `/api/agents/${agent.agentId}/cli/start`);
    expect(started.status, started.text).toBe(200);
    const term = await socket(`${started.json.tty_url}ws`, boxes.stack.apiUrl);
    try {
      // The value's length, not the value: the terminal's output is not redacted.
      term.ws.send(JSON.stringify({ type: "input", data: `echo "sec=\${#${agent.secretName}} who=$(whoami) at=$PWD"\r` }));
      await term.until(/sec=\d+ who=\w+ at=\S+/);
      expect(/sec=(\d+) who=(\w+) at=(\S+)/.exec(term.text())!.slice(1)).toEqual([String(agent.value.length), "root", "/home/agent"]);
    } finally {
      term.ws.close();
    }
  }, 120_000);
});
