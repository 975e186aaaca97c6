import { randomUUID } from "node:crypto";
import { expect, inject } from "vitest";
import { api } from "./http";

/**
 * Where calls go: the suite's shared stack by default, or a stack a test file started
 * itself (its API URL, token and mock model).
 */
export interface Target {
  base?: string;
  token?: string;
  mockUrl?: string;
}

export interface WireRow {
  seq: number;
  generation: number | null;
  role: string;
  payload: any;
  metadata: any;
  created_at: string;
}

const call = (target: Target, method: string, path: string, body?: unknown) => api(method, path, { base: target.base, token: target.token, body });

/**
 * A new guild with one agent whose model name is its own, so the mock model's replies
 * scripted for it are never taken by a test running beside it.
 */
export async function guildWithAgent(name: string, target: Target = {}) {
  const guild = await call(target, "POST", "/api/guilds", { name });
  expect(guild.status, guild.text).toBe(201);
  const model = `mock-${randomUUID().slice(0, 8)}`;
  const agent = await call(target, "POST", `/api/guilds/${guild.json.id}/agents`, { name: "Agent", model });
  expect(agent.status, agent.text).toBe(201);
  return { guildId: guild.json.id as string, agentId: agent.json.id as string, model };
}

/** Queues replies of the mock model for one model name. */
export async function script(model: string, replies: unknown[], target: Target = {}) {
  const res = await fetch(`${target.mockUrl ?? inject("mockModelUrl")}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, replies }),
  });
  expect(res.status).toBe(200);
}

/** Polls until the agent holds no generation lock; returns the agent's status. */
export async function agentIdle(agentId: string, target: Target = {}, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await call(target, "GET", `/api/agents/${agentId}/status`);
    if (status.status === 200 && status.json.generating === false) return status.json;
    if (Date.now() > deadline) throw new Error(`agent ${agentId} still generating after ${timeoutMs} ms: ${status.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The run as GET /api/runs/:id answers it (status, errors, generating). */
export async function readRun(runId: string, target: Target = {}) {
  const res = await call(target, "GET", `/api/runs/${runId}`);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** Every stored row of the run, in seq order, read page by page. */
export async function transcript(runId: string, target: Target = {}): Promise<WireRow[]> {
  const rows: WireRow[] = [];
  for (;;) {
    const after = rows.length ? rows[rows.length - 1]!.seq : -1;
    const res = await call(target, "GET", `/api/runs/${runId}/messages?after_seq=${after}&limit=1000`);
    expect(res.status, res.text).toBe(200);
    rows.push(...res.json.data);
    if (res.json.data.length < 1000) return rows;
  }
}

/** Seqs run 0..n with no gap and no duplicate. */
export function expectNoGap(rows: WireRow[], runId: string) {
  expect
    .soft(
      rows.map((r) => r.seq),
      `seqs of run ${runId}`,
    )
    .toEqual(rows.map((_, i) => i));
}

/** The error codes recorded on the run. */
export const errorCodes = (run: { errors: Array<{ code: string }> }) => run.errors.map((e) => e.code);

export interface GenerationSpan {
  runId: string;
  generation: number;
  from: number;
  to: number;
}

/** Each generation of the runs as the time span of its stored rows. */
export function generationSpans(byRun: Record<string, WireRow[]>): GenerationSpan[] {
  const spans = new Map<string, GenerationSpan>();
  for (const [runId, rows] of Object.entries(byRun)) {
    for (const row of rows) {
      if (row.generation === null) continue;
      const at = Date.parse(row.created_at);
      const key = `${runId}/${row.generation}`;
      const span = spans.get(key) ?? { runId, generation: row.generation, from: at, to: at };
      span.from = Math.min(span.from, at);
      span.to = Math.max(span.to, at);
      spans.set(key, span);
    }
  }
  return [...spans.values()].sort((a, b) => a.from - b.from);
}

/** Pairs of generations whose rows interleave in time: two generations ran at once. */
export function overlaps(spans: GenerationSpan[]): string[] {
  const found: string[] = [];
  let latest: GenerationSpan | null = null;
  for (const span of spans) {
    if (latest && span.from < latest.to) found.push(`${latest.runId}#${latest.generation} and ${span.runId}#${span.generation}`);
    if (!latest || span.to > latest.to) latest = span;
  }
  return found;
}
