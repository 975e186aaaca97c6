import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { freePort } from "../../scripts/stack/ports";
import { type Stack, startStack } from "../../scripts/stack/stack";
import { agentIdle, errorCodes, expectNoGap, guildWithAgent, readRun, script, type Target, transcript, type WireRow } from "./agents";
import { api } from "./http";

/**
 * A stack of the test file's own, started before its tests and stopped after, for tests
 * that stop or freeze its database: no other test file shares it. `name` tells its state
 * folder apart (guilds-<name>-…). Its sandboxes are off: these tests are about the database,
 * and a stack that never touches the container engine runs beside the box files, not in
 * their turn (test/setup/box-files.ts).
 */
export function ownStack(name: string) {
  const stateDir = mkdtempSync(join(tmpdir(), `guilds-${name}-`));
  let stack: Stack | undefined;
  let target: Target | undefined;
  beforeAll(async () => {
    // As root, Postgres runs as its own user, who must be able to reach its data folder.
    chmodSync(stateDir, 0o755);
    const output: string[] = [];
    stack = await startStack({ port: await freePort(), stateDir, containers: "off", output: (line) => output.push(line) }).catch((error: unknown) => {
      console.error(output.slice(-40).join("\n"));
      throw error;
    });
    target = { base: stack.apiUrl, token: stack.token, mockUrl: stack.mockModelUrl! };
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const started = () => {
    if (!stack || !target) throw new Error("the stack has not started");
    return { stack, target };
  };
  return {
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

/** Polls `read` until `done` holds (a failed read counts as its error); throws with the last value after `timeoutMs`. */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch((error: unknown) => error as T);
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} after ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

type OwnStack = ReturnType<typeof ownStack>;

/**
 * A direct run of a new agent whose model answers `replies`, once its first tool result is
 * stored (the database is then taken away during the second model call): its ids and rows.
 */
export async function runPastFirstTool(own: OwnStack, name: string, replies: unknown[], timeoutMs: number) {
  const { agentId, model } = await guildWithAgent(name, own.target);
  await script(model, replies, own.target);
  const started = await own.call("POST", `/api/agents/${agentId}/runs`, { message: "write two notes" });
  expect(started.status, started.text).toBe(201);
  const runId = started.json.id as string;
  const before = await until(
    `run ${runId} has no tool result`,
    () => transcript(runId, own.target),
    (rows) => Array.isArray(rows) && rows.some((r) => r.role === "tool"),
    timeoutMs,
  );
  return { agentId, runId, before };
}

/**
 * The direct run rode the database's absence out: it stopped generating, is still active,
 * with no error and no false interruption; its rows, with no gap.
 */
export async function rodeOut(own: OwnStack, runId: string, timeoutMs: number): Promise<WireRow[]> {
  const after = await until(
    `run ${runId} still generating or unreadable`,
    () => readRun(runId, own.target),
    (run) => run?.generating === false,
    timeoutMs,
  );
  expect.soft(after.status, "a direct run stays active").toBe("active");
  expect.soft(after.errors, "the generation waited for the database instead of failing").toEqual([]);
  expect.soft(errorCodes(after), "no false interruption").not.toContain("generation.interrupted");
  const rows = await transcript(runId, own.target);
  expectNoGap(rows, runId);
  return rows;
}

/** The run takes its next message and the agent answers it (the mock model echoes it). */
export async function nextMessageAnswered(own: OwnStack, runId: string, agentId: string): Promise<void> {
  const next = await own.call("POST", `/api/runs/${runId}/messages`, { content: "are you back?" });
  expect(next.status, next.text).toBe(202);
  await agentIdle(agentId, own.target);
  const final = await transcript(runId, own.target);
  expectNoGap(final, runId);
  expect(final.at(-1)!.payload).toEqual({ role: "assistant", content: "echo: are you back?" });
}

/** Every tool call in the transcript has exactly one result row (CANCEL-005). */
export function expectResolvedCalls(rows: WireRow[]): void {
  const calls = rows.flatMap((r) => (r.role === "assistant" ? (r.payload.tool_calls ?? []).map((c: { id: string }) => c.id) : []));
  const results = rows.filter((r) => r.role === "tool").map((r) => r.payload.tool_call_id);
  expect.soft(results.sort(), "a result for every tool call").toEqual([...calls].sort());
}
