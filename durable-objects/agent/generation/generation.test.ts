import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import type { Env } from "../../../bindings/env";
import { openDatabase } from "../../../core/db/client";
import { appendRow, updateRun } from "../../../core/db/transcript";
import { platformRedactor, Redactor } from "../../../core/output/redaction";
import { tavilySearchTool } from "../../../core/tools/search";
import type { ToolDefinition } from "../../../core/tools/types";
import { modelRequests, newAgent, objectOf, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";
import type { RunContext } from "../state/context";
import { RunSession } from "../state/run-session";
import { runGeneration } from "./generation";
import { imageHydrator, r2Images } from "./hydrate";
import { r2ToolImages } from "./tools/images";

/** A 1x1 PNG. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

const bindings = env as unknown as Env;
const connectionLost = () => new Error("Connection terminated unexpectedly");

/** A run with its system row, loaded as the object holds it. */
async function openSession(token: string, agentId: string) {
  const run = (await call("POST", `/api/agents/${agentId}/runs`, { token, body: {} })).json;
  const conn = openDatabase(bindings);
  const session = (await RunSession.load(conn.db, run.id))!;
  return { conn, session, runId: run.id as string };
}

describe("a generation's failure paths", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("HARDEN-2: a write that meets a database outage is retried, and a retry whose first try had committed keeps one row", async () => {
    const agent = await newAgent(token, guildId);
    const { conn, session, runId } = await openSession(token, agent.id);
    try {
      let attempts = 0;
      const published: number[] = [];
      session.live = { publishRow: (_runId: string, row: { seq: number }) => published.push(row.seq) };
      // Two connection failures, then the write goes through.
      await session.commit(
        conn.db,
        { generation: 1, role: "user", payload: { role: "user", content: "one" }, metadata: {}, tokenCount: 3 },
        async (db, row) => {
          if (++attempts <= 2) throw connectionLost();
          return appendRow(db, row);
        },
      );
      expect(attempts).toBe(3);
      // The write commits but its answer is lost: the retry finds its own row and takes it.
      let second = 0;
      await session.commit(
        conn.db,
        { generation: 1, role: "user", payload: { role: "user", content: "two", extra: { b: 1, a: 2 } }, metadata: {}, tokenCount: 3 },
        async (db, row) => {
          second += 1;
          const written = await appendRow(db, row);
          if (second === 1) throw connectionLost();
          return written;
        },
      );
      expect(second).toBe(2);
      expect(published).toEqual([1, 2]);
      const stored = await rows(token, runId);
      expect(stored.slice(1).map((r) => [r.seq, r.payload.content])).toEqual([
        [1, "one"],
        [2, "two"],
      ]);
      expect(session.rows.map((r) => r.seq)).toEqual([0, 1, 2]);
      expect(session.stale).toBe(false);
    } finally {
      await conn.close();
    }
  });

  it("HARDEN-2: a run's errors are appended once: a retried ending after a lost answer adds nothing", async () => {
    const agent = await newAgent(token, guildId);
    const { conn, runId } = await openSession(token, agent.id);
    try {
      const error = { code: "generation.failed", message: "x", generation: 1, operation: "generation", at: "2026-01-01T00:00:00.000Z" };
      await updateRun(conn.db, runId, { errors: [error] });
      await updateRun(conn.db, runId, { errors: [error] });
      await updateRun(conn.db, runId, { errors: [{ ...error, generation: 2 }] });
      const run = (await call("GET", `/api/runs/${runId}`, { token })).json;
      expect(run.errors.map((e: { generation: number }) => e.generation)).toEqual([1, 2]);
    } finally {
      await conn.close();
    }
  });

  it("HARDEN-2: a write Postgres refuses is not retried, and the session is marked stale so the object reloads it", async () => {
    const agent = await newAgent(token, guildId);
    const { conn, session } = await openSession(token, agent.id);
    try {
      let attempts = 0;
      const refused = session.commit(
        conn.db,
        { generation: 1, role: "user", payload: { role: "user", content: "x" }, metadata: {}, tokenCount: 1 },
        async () => {
          attempts += 1;
          throw Object.assign(new Error("new row violates check constraint"), { code: "23514" });
        },
      );
      await expect(refused).rejects.toThrow("check constraint");
      expect(attempts).toBe(1);
      expect(session.stale).toBe(true);
      expect(session.rows).toHaveLength(1);
    } finally {
      await conn.close();
    }
  });

  it("CANCEL-001: cancel stops a tool in flight: the tool sees its signal, the call gets its interruption result at once", async () => {
    const agent = await newAgent(token, guildId);
    const { conn, session, runId } = await openSession(token, agent.id);
    let toolSignal: AbortSignal | undefined;
    const slow: ToolDefinition<{ seconds: number }> = {
      name: "slow_tool",
      binding: "test",
      description: "Waits.",
      parameters: z.object({ seconds: z.number() }),
      // Never resolves on its own: only the signal ends it.
      execute: (_args, ctx) =>
        new Promise(() => {
          toolSignal = ctx.signal;
        }),
    };
    await script(agent.model, [{ tool_calls: [toolCall("slow_tool", { seconds: 600 })] }]);
    const controller = new AbortController();
    try {
      await session.commit(conn.db, { generation: 1, role: "user", payload: { role: "user", content: "wait" }, metadata: {}, tokenCount: 1 });
      const started = Date.now();
      setTimeout(() => controller.abort(), 500);
      const outcome = await runGeneration(context, deps(conn.db, session, controller.signal, [slow]));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(toolSignal?.aborted).toBe(true);
      expect(outcome.errors.map((e) => e.code)).toEqual(["generation.cancelled"]);
      const stored = await rows(token, runId);
      expect(stored.at(-1)!.payload).toMatchObject({ role: "tool", content: "ERROR: execution interrupted" });
      expect(stored.at(-1)!.metadata.source).toBe("interruption");
    } finally {
      await conn.close();
    }
  });

  it("CANCEL-005 / ERR-015: a platform failure mid-generation leaves interruption results, and a one-shot run completes", async () => {
    const agent = await newAgent(token, guildId);
    const { conn, session, runId } = await openSession(token, agent.id);
    // The run as a schedule run sees it: one-shot, so a failed generation completes it.
    session.facts = { ...session.facts, kind: "schedule" };
    await script(agent.model, [{ tool_calls: [toolCall("note_list", {}), toolCall("note_list", {})] }]);
    let calls = 0;
    const failing: ToolDefinition<Record<string, never>> = {
      name: "note_list",
      binding: "test",
      description: "Lists notes.",
      parameters: z.object({}),
      execute: async () => ({ content: "[]" }),
    };
    try {
      await session.commit(conn.db, { generation: 1, role: "user", payload: { role: "user", content: "go" }, metadata: {}, tokenCount: 1 });
      const outcome = await runGeneration(context, {
        ...deps(conn.db, session, new AbortController().signal, [failing]),
        // The second result's output pipeline breaks: a platform bug, not a tool error.
        redactor: new (class extends Redactor {
          override redact(text: string) {
            if (text === "[]" && ++calls === 2) throw new TypeError("redactor broke");
            return super.redact(text);
          }
        })([]),
      });
      expect(outcome.errors.map((e) => e.code)).toEqual(["generation.failed"]);
      expect(outcome.status).toBe("completed");
      const stored = await rows(token, runId);
      expect(stored.filter((r) => r.role === "tool").map((r) => r.payload.content.split("\n")[0])).toEqual(["[]", "ERROR: execution interrupted"]);
    } finally {
      await conn.close();
    }
  });

  it("OP-EXACT-2: a tool's image is kept as an attachment its row references and reaches the next model request as image_url", async () => {
    const agent = await newAgent(token, guildId);
    const { conn, session, runId } = await openSession(token, agent.id);
    const camera: ToolDefinition<Record<string, never>> = {
      name: "browser_screenshot",
      binding: "test",
      description: "Takes a picture.",
      parameters: z.object({}),
      execute: async () => ({ content: "Screenshot of https://example.com/ (1x1).", image: { mediaType: "image/png", dataBase64: PIXEL_PNG } }),
    };
    await script(agent.model, [{ tool_calls: [toolCall("browser_screenshot", {})] }, { content: "A white pixel." }]);
    try {
      await session.commit(conn.db, { generation: 1, role: "user", payload: { role: "user", content: "look" }, metadata: {}, tokenCount: 1 });
      const outcome = await runGeneration(context, {
        ...deps(conn.db, session, new AbortController().signal, [camera]),
        toolImages: r2ToolImages(conn.db, bindings.ATTACHMENTS, session.scope.organisationId),
        hydrate: imageHydrator(r2Images(bindings.ATTACHMENTS)),
      });
      expect(outcome.errors).toEqual([]);
      const result = (await rows(token, runId)).find((r) => r.role === "tool")!;
      expect(result.payload.content).toMatch(/^Screenshot of https:\/\/example\.com\/ \(1x1\)\.\nremaining_tool_calls: \d+$/);
      const [ref] = result.metadata.attachments;
      expect(ref).toMatchObject({ mime: "image/png", kind: "image", filename: expect.stringMatching(/^browser_screenshot-.+\.png$/) });
      // The bytes are served like an uploaded image's.
      const worker = (exports as unknown as { default: Fetcher }).default;
      const served = await worker.fetch(`http://api.test/api/attachments/${ref.id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(served.status).toBe(200);
      expect(btoa(String.fromCharCode(...new Uint8Array(await served.arrayBuffer())))).toBe(PIXEL_PNG);
      // The second model call sees the image right after the tool result it belongs to.
      const [, second] = await modelRequests(agent.model);
      const messages = second!.body.messages as Array<{ role: string; content: unknown }>;
      const toolIndex = messages.findIndex((m) => m.role === "tool");
      expect(messages[toolIndex + 1]).toEqual({
        role: "user",
        content: [
          { type: "text", text: `[image returned by browser_screenshot, call ${result.payload.tool_call_id}]` },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL_PNG}` } },
        ],
      });
    } finally {
      await conn.close();
    }
  });

  it("EXACT-015: tavily_search runs with the generation's search, from the object; a key the provider echoes is redacted in the row", async () => {
    const agent = await newAgent(token, guildId);
    const { conn, session, runId } = await openSession(token, agent.id);
    const key = "tvly-test-key-0123456789abcdef";
    const asked: string[] = [];
    await script(agent.model, [{ tool_calls: [toolCall("tavily_search", { query: "workerd" })] }, { content: "Found it." }]);
    try {
      await session.commit(conn.db, { generation: 1, role: "user", payload: { role: "user", content: "search" }, metadata: {}, tokenCount: 1 });
      const outcome = await runGeneration(context, {
        ...deps(conn.db, session, new AbortController().signal, [tavilySearchTool]),
        redactor: platformRedactor({ ...bindings, TAVILY_API_KEY: key }),
        search: async (request) => {
          asked.push(request.query);
          return { answer: null, results: [{ title: "workerd", url: "https://example.com/workerd", content: `echoed ${key}` }] };
        },
      });
      expect(outcome.errors).toEqual([]);
      expect(asked).toEqual(["workerd"]);
      const result = (await rows(token, runId)).find((r) => r.role === "tool")!;
      expect(result.payload.content).toContain("[1] workerd\nURL: https://example.com/workerd\nechoed [REDACTED:TAVILY_API_KEY]");
      expect(JSON.stringify(await rows(token, runId))).not.toContain(key);
    } finally {
      await conn.close();
    }
  });

  it("GROUP-007 / SCHED-020: memory_skipped is recorded only when the run returned, not on a provider failure or a cancel", async () => {
    const agent = await newAgent(token, guildId, { memory: true });
    const fire = async (replies: unknown[], cancel: boolean) => {
      await script(agent.model, replies);
      const routine = (
        await call("POST", `/api/agents/${agent.id}/schedules`, { token, body: { description: "Once", instruction: "Reflect.", cron: "0 0 1 1 *" } })
      ).json;
      const stub = objectOf(agent.id);
      await runInDurableObject(stub, (object: AgentObject) => {
        object.now = () => Date.parse(routine.next_run_at) + 100;
      });
      await runDurableObjectAlarm(stub);
      const [run] = (await call("GET", `/api/schedules/${routine.id}/runs`, { token })).json.data;
      if (cancel) expect((await call("POST", `/api/runs/${run.id}/cancel`, { token })).status).toBe(200);
      await call("DELETE", `/api/schedules/${routine.id}`, { token });
      return settled(token, run.id);
    };
    const failed = await fire([{ status: 500 }], false);
    expect(failed.errors.map((e: { code: string }) => e.code)).toContain("provider.error");
    expect(failed.metadata.memory_skipped).toBeUndefined();
    const cancelled = await fire([{ content: "thinking", delay_ms: 3_000 }], true);
    expect(cancelled.errors.map((e: { code: string }) => e.code)).toContain("generation.cancelled");
    expect(cancelled.metadata.memory_skipped).toBeUndefined();
    const returned = await fire([{ content: "done" }, { content: "still done" }], false);
    expect(returned.metadata.memory_skipped).toBe(true);
  });
});

/** A generation's inputs against the test's mock model, with the given tools. */
function deps(db: ReturnType<typeof openDatabase>["db"], session: RunSession, signal: AbortSignal, tools: ToolDefinition<any>[]) {
  return {
    db,
    session,
    generation: 1,
    signal,
    provider: { baseURL: bindings.MODEL_BASE_URL!, apiKey: "" },
    tools,
    store: {} as never,
    redactor: platformRedactor(bindings),
    pricing: { prices: {}, fallback: { input: 0, output: 0 }, platformKey: true },
    spend: { limitUsd: null, monthCostUsd: 0, reservedUsd: 0 },
    hydrate: async (messages: unknown[]) => messages,
  };
}

/** The agent's context as a generation outside an agent object reads it: the clock and a stream nobody hears. */
const context = { now: () => Date.now(), hub: { publish: () => {} } } as unknown as RunContext;
