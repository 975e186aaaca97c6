import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { freePort } from "../../scripts/stack/ports";
import { removeStateDir } from "../../scripts/stack/postgres-home";
import { type Stack, startStack } from "../../scripts/stack/stack";
import { giveTurnBack, stackTakesTurn, takeTurn, WAIT_LIMIT_MS } from "../setup/turn";
import { agentIdle, readRun, script, type Target, transcript } from "./agents";
import { api } from "./http";
import { removeSeenBoxes } from "./sandbox-box";

/**
 * A stack of the test file's own with the container engine on and these Worker vars (a
 * short idle time, a short script timeout), started before its tests and stopped after,
 * with the boxes it saw removed. It starts while another box file holds the turn and takes
 * the turn once up, so its start is off the box files' chain. A machine where no engine
 * could be set up fails them: these tests are about real boxes.
 */
export function containerStack(vars: Record<string, string>) {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-boxes-"));
  const output: string[] = [];
  let stack: Stack | undefined;
  let target: Target | undefined;
  stackTakesTurn();
  beforeAll(async () => {
    stack = await startStack({ port: await freePort(), stateDir, vars, output: (line) => output.push(line) }).catch((error: unknown) => {
      console.error(output.slice(-40).join("\n"));
      throw error;
    });
    expect(stack.containers, stack.containers.reason).toMatchObject({ enabled: true });
    target = { base: stack.apiUrl, token: stack.token, mockUrl: stack.mockModelUrl! };
    await takeTurn();
  }, 240_000 + WAIT_LIMIT_MS);
  afterAll(async () => {
    await stack?.stop();
    removeSeenBoxes();
    giveTurnBack();
    removeStateDir(stateDir);
  });
  const started = () => {
    if (!stack || !target) throw new Error("the stack has not started");
    return { stack, target };
  };
  return {
    /** The output of wrangler dev and Postgres (the object's log lines). */
    output,
    /** The stack's state folder (wrangler dev's local storage lives under `wrangler/`). */
    stateDir,
    get stack() {
      return started().stack;
    },
    get target() {
      return started().target;
    },
    /** A call to the stack's API with its operator token. */
    call: (method: string, path: string, body?: unknown) => api(method, path, { base: started().target.base, token: started().target.token, body }),
  };
}

/**
 * An agent with one secret of its own, granted to it alone: the secret's NAME tells the
 * agent's box apart in the engine (boxesWithVariable); the value never leaves the test.
 */
export async function agentWithSecret(call: ReturnType<typeof containerStack>["call"], prefix: string, settings: Record<string, unknown>) {
  const guild = await call("POST", "/api/guilds", { name: `${prefix} guild` });
  const model = `${prefix.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}`;
  const agent = await call("POST", `/api/guilds/${guild.json.id}/agents`, { name: prefix, model, ...settings });
  expect(agent.status, agent.text).toBe(201);
  const secretName = `${prefix.slice(0, 3).toUpperCase()}_${crypto.randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`;
  const value = `value-${crypto.randomUUID()}`;
  const secret = await call("POST", "/api/secrets", { name: secretName, value });
  expect(secret.status, secret.text).toBe(201);
  expect((await call("POST", `/api/secrets/${secret.json.id}/grants`, { agent_id: agent.json.id })).status).toBe(201);
  return { agentId: agent.json.id as string, guildId: guild.json.id as string, model, secretName, secretId: secret.json.id as string, value };
}

/** A tool call the scripted model makes. */
export type ScriptedCall = { name: string; arguments: Record<string, unknown> };

/**
 * One generation of `agent` on the container stack whose model makes these tool calls (one
 * reply, run one at a time), in a new run or in `runId`; the run, its rows, and each call's
 * result in order, without the budget trailer every result carries (GEN-025).
 */
export async function generate(boxes: ReturnType<typeof containerStack>, agent: { agentId: string; model: string }, calls: ScriptedCall[], runId?: string) {
  await script(agent.model, calls.length ? [{ tool_calls: calls }, { content: "done" }] : [{ content: "done" }], boxes.target);
  const started = runId
    ? await boxes.call("POST", `/api/runs/${runId}/messages`, { content: "again" })
    : await boxes.call("POST", `/api/agents/${agent.agentId}/runs`, { message: "go" });
  expect(started.status, started.text).toBeLessThan(300);
  const id = runId ?? (started.json.id as string);
  await agentIdle(agent.agentId, boxes.target, 180_000);
  const rows = await transcript(id, boxes.target);
  const results = rows.filter((r) => r.role === "tool").slice(-calls.length || rows.length);
  return {
    runId: id,
    rows,
    results: calls.length ? results.map((r) => String(r.payload.content).replace(/\nremaining_tool_calls: \d+$/, "")) : [],
    run: await readRun(id, boxes.target),
  };
}
