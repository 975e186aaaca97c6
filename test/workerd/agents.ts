import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Env } from "../../bindings/env";
import type { AgentObject } from "../../durable-objects/agent/agent-object";
import { call } from "./seed";

const mockUrl = () => (env as unknown as Env).MODEL_BASE_URL!.replace(/\/v1$/, "");

/**
 * A fresh agent whose model name is its own, so the mock model's replies scripted for
 * it are never taken by a test running beside it.
 */
export async function newAgent(token: string, guildId: string, settings: Record<string, unknown> = {}) {
  const model = `mock-model-${crypto.randomUUID().slice(0, 8)}`;
  const res = await call("POST", `/api/guilds/${guildId}/agents`, { token, body: { name: "Agent", model, ...settings } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { id: res.json.id as string, model };
}

/** Queues replies of the mock model for one model name. */
export async function script(model: string, replies: unknown[]) {
  const res = await fetch(`${mockUrl()}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, replies }),
  });
  expect(res.status).toBe(200);
}

/**
 * Queues replies that wait, once taken, until the returned function is called: whoever
 * generates holds its lock until then, so a test decides what happens meanwhile without
 * racing a clock.
 *
 * @example
 * const release = await scriptHeld(agent.model, [{ content: "one" }]);
 * const replies = await Promise.all(burst);   // all answered while the winner generates
 * await release();
 */
export async function scriptHeld(model: string, replies: Record<string, unknown>[]): Promise<() => Promise<void>> {
  const hold = `held-${crypto.randomUUID()}`;
  await script(
    model,
    replies.map((reply) => ({ ...reply, hold })),
  );
  return async () => {
    const res = await fetch(`${mockUrl()}/__release`, { method: "POST", body: JSON.stringify({ hold }) });
    expect(res.status).toBe(200);
  };
}

/** The chat completion requests the mock received for a model, in order. */
export async function modelRequests(model: string): Promise<Array<{ body: any; aborted: boolean }>> {
  const res = await fetch(`${mockUrl()}/__requests?model=${encodeURIComponent(model)}`);
  return ((await res.json()) as { requests: Array<{ body: any; aborted: boolean }> }).requests;
}

/** Polls the run until its agent no longer generates; returns the run payload. */
export async function settled(token: string, runId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await call("GET", `/api/runs/${runId}`, { token });
    if (!run.json.generating) return run.json;
    if (Date.now() > deadline) throw new Error(`run ${runId} still generating after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The agent's Durable Object, as the Worker addresses it. */
export function objectOf(agentId: string): DurableObjectStub<AgentObject> {
  const ns = (env as unknown as Env).AGENT;
  return ns.get(ns.idFromName(agentId));
}

/** Polls the run until its agent generates for it. */
export async function untilGenerating(token: string, runId: string) {
  for (let i = 0; i < 200; i++) {
    if ((await call("GET", `/api/runs/${runId}`, { token })).json.generating) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("never started generating");
}

/** The run's rows in order. */
export async function rows(token: string, runId: string) {
  const res = await call("GET", `/api/runs/${runId}/messages`, { token });
  expect(res.status).toBe(200);
  return res.json.data as Array<{
    seq: number;
    generation: number | null;
    role: string;
    payload: any;
    metadata: any;
    cost_usd: string | null;
    created_at: string;
  }>;
}

export const toolCall = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
