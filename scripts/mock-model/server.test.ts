/**
 * Drives the mock model over real HTTP, through the official `openai` SDK where a
 * client would, and raw fetch where the wire format itself is the point.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type MockModel, type RecordedRequest, startMockModel } from "./server";

let mock: MockModel;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockModel({ port: 0 });
  client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: "sk-test-secret", maxRetries: 0 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  const res = await fetch(`${mock.url}/__script`, { method: "DELETE" });
  expect(res.status).toBe(200);
});

async function script(replies: unknown[]): Promise<Response> {
  return fetch(`${mock.url}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ replies }),
  });
}

async function requests(): Promise<RecordedRequest[]> {
  const res = await fetch(`${mock.url}/__requests`);
  return ((await res.json()) as { requests: RecordedRequest[] }).requests;
}

type Chunk = {
  choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: Record<string, unknown> | null;
  model: string;
  object: string;
};

/** Raw SSE: every `data:` payload, so tests see the exact chunks and the closing `[DONE]`. */
async function rawStream(body: Record<string, unknown>): Promise<{ chunks: Chunk[]; done: boolean; type: string }> {
  const res = await fetch(`${mock.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, ...body }),
  });
  const events = (await res.text()).split("\n\n").filter((e) => e.length > 0);
  for (const event of events) expect(event.startsWith("data: ")).toBe(true);
  const payloads = events.map((e) => e.slice("data: ".length));
  return {
    chunks: payloads.filter((p) => p !== "[DONE]").map((p) => JSON.parse(p) as Chunk),
    done: payloads.at(-1) === "[DONE]",
    type: res.headers.get("content-type") ?? "",
  };
}

const user = (content: string) => [{ role: "user" as const, content }];

describe("mock model: text", () => {
  it("streams scripted content that the SDK assembles back exactly, in several chunks", async () => {
    const content = "The quick brown fox jumps over the lazy dog, twice.";
    await script([{ content }]);
    const stream = client.chat.completions.stream({ model: "gpt-test", messages: user("hi") });
    const deltas: string[] = [];
    stream.on("content", (delta) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(content);
    expect(final.choices[0]?.finish_reason).toBe("stop");
    expect(final.model).toBe("gpt-test");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe(content);
  });

  it("uses the real chunk format: role first, finish last, then [DONE]", async () => {
    await script([{ content: "hello world" }]);
    const { chunks, done, type } = await rawStream({ messages: user("x") });
    expect(type).toContain("text/event-stream");
    expect(done).toBe(true);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "m")).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
    expect(chunks.some((c) => c.usage)).toBe(false);
  });

  it("answers non-streaming with a chat.completion echoing the model", async () => {
    await script([{ content: "plain", finish_reason: "length" }]);
    const res = await client.chat.completions.create({ model: "my-model", messages: user("q") });
    expect(res.object).toBe("chat.completion");
    expect(res.model).toBe("my-model");
    expect(res.choices[0]?.message).toMatchObject({ role: "assistant", content: "plain" });
    expect(res.choices[0]?.finish_reason).toBe("length");
  });

  it("ISSUE-33: a reply with `when` is taken only by a request whose last message holds it, the others keep their order", async () => {
    await script([{ when: "/a2,", content: "for a2" }, { content: "any" }, { when: "/a1,", content: "for a1" }]);
    const ask = async (text: string) => (await client.chat.completions.create({ model: "m", messages: user(text) })).choices[0]?.message.content;
    expect(await ask("on the branch factory/task/APP-7/a1, made from main")).toBe("any");
    expect(await ask("on the branch factory/task/APP-7/a1, made from main")).toBe("for a1");
    expect(await ask("on the branch factory/task/APP-7/a3, made from main")).toMatch(/^echo: /);
    expect(await ask("on the branch factory/task/APP-7/a2, made from main")).toBe("for a2");
    expect((await script([{ when: 2 }])).status).toBe(400);
  });

  it("echoes the last user message when nothing is queued, text parts included", async () => {
    const a = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: "ok" },
        { role: "user", content: "second" },
      ],
    });
    expect(a.choices[0]?.message.content).toBe("echo: second");
    const b = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: [{ type: "text", text: "from parts" }] }],
    });
    expect(b.choices[0]?.message.content).toBe("echo: from parts");
  });

  it("serves /chat/completions without the /v1 prefix", async () => {
    await script([{ content: "no prefix" }]);
    const res = await fetch(`${mock.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: user("x") }),
    });
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe("no prefix");
  });
});

describe("mock model: tool calls and reasoning", () => {
  const calls = [
    { name: "get_weather", arguments: { city: "Paris", units: "metric", days: [1, 2, 3] } },
    { id: "call_custom", name: "search", arguments: '{"q":"long enough query to fragment"}' },
  ];

  it("streams tool calls that the SDK assembles with names, arguments and ids", async () => {
    await script([{ tool_calls: calls }]);
    const final = await client.chat.completions.stream({ model: "m", messages: user("weather?") }).finalChatCompletion();
    const choice = final.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    const toolCalls = (choice?.message.tool_calls ?? []).map((c) => (c.type === "function" ? c : undefined));
    expect(toolCalls.map((c) => c?.id)).toEqual(["call_1", "call_custom"]);
    expect(toolCalls.map((c) => c?.function.name)).toEqual(["get_weather", "search"]);
    expect(JSON.parse(toolCalls[0]?.function.arguments ?? "")).toEqual(calls[0]?.arguments);
    expect(JSON.parse(toolCalls[1]?.function.arguments ?? "")).toEqual({ q: "long enough query to fragment" });
  });

  it("sends id, type and name in the first fragment and arguments in several more", async () => {
    await script([{ tool_calls: calls }]);
    const { chunks } = await rawStream({ messages: user("x") });
    type Fragment = { index: number; id?: string; type?: string; function: { name?: string; arguments?: string } };
    const fragments = chunks.flatMap((c) => (c.choices[0]?.delta.tool_calls as Fragment[] | undefined) ?? []);
    const first = fragments.filter((f) => f.index === 1);
    expect(first[0]).toMatchObject({ id: "call_custom", type: "function", function: { name: "search" } });
    expect(first.length).toBeGreaterThan(2);
    expect(first.slice(1).every((f) => f.id === undefined && f.function.name === undefined)).toBe(true);
  });

  it("returns tool calls non-streaming and numbers ids across replies", async () => {
    await script([{ tool_calls: [{ name: "a", arguments: {} }] }, { tool_calls: [{ name: "b", arguments: "{}" }] }]);
    const one = await client.chat.completions.create({ model: "m", messages: user("x") });
    const two = await client.chat.completions.create({ model: "m", messages: user("x") });
    expect(one.choices[0]?.message.content).toBeNull();
    expect(one.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: "call_1", function: { name: "a" } });
    expect(two.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: "call_2", function: { name: "b" } });
  });

  it("streams reasoning as reasoning_content before the content, and returns it whole otherwise", async () => {
    const reply = { reasoning: "Let me think about this carefully.", content: "Answer." };
    await script([reply, reply]);
    const { chunks } = await rawStream({ messages: user("x") });
    const kinds = chunks.map((c) => {
      const delta = c.choices[0]?.delta;
      return delta?.reasoning_content ? "r" : delta?.content ? "c" : "-";
    });
    const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? "").join("");
    expect(reasoning).toBe(reply.reasoning);
    expect(kinds.lastIndexOf("r")).toBeLessThan(kinds.indexOf("c"));
    const whole = await fetch(`${mock.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: user("x") }),
    });
    const body = (await whole.json()) as { choices: { message: Record<string, unknown> }[] };
    expect(body.choices[0]?.message).toMatchObject({ reasoning_content: reply.reasoning, content: "Answer." });
  });
});

describe("mock model: provider reasoning blocks", () => {
  const blocks = [
    { type: "reasoning.text", id: "r1", format: "anthropic-claude-v1", text: "Look at the notes before answering.", signature: "sig-1" },
    { type: "reasoning.encrypted", id: "r2", format: "anthropic-claude-v1", data: "b3BhcXVl" },
  ];

  it("RUN-016: streams reasoning_details fragments per block index, the text also as reasoning, the signature last", async () => {
    await script([{ reasoning_details: blocks, content: "Done." }]);
    const { chunks } = await rawStream({ messages: user("x") });
    type Fragment = Record<string, unknown> & { index: number };
    const fragments = chunks.flatMap((c) => (c.choices[0]?.delta.reasoning_details as Fragment[] | undefined) ?? []);
    const first = fragments.filter((f) => f.index === 0);
    expect(first.length).toBeGreaterThan(2);
    expect(first[0]).toMatchObject({ type: "reasoning.text", id: "r1", format: "anthropic-claude-v1" });
    expect(first.map((f) => f.text).join("")).toBe(blocks[0]!.text);
    expect(first.at(-1)).toMatchObject({ signature: "sig-1" });
    expect(fragments.filter((f) => f.index === 1)).toEqual([{ ...blocks[1], index: 1 }]);
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning ?? "").join("")).toBe(blocks[0]!.text);
  });

  it("refuses reasoning_details that is not an array of typed objects, or given with reasoning", async () => {
    expect((await script([{ reasoning_details: [{ text: "no type" }] }])).status).toBe(400);
    expect((await script([{ reasoning: "a", reasoning_details: blocks }])).status).toBe(400);
  });
});

describe("mock model: usage", () => {
  const usage = { prompt_tokens: 123, completion_tokens: 45, cached_tokens: 100, reasoning_tokens: 7 };

  it("passes scripted usage through a stream with include_usage, in a final choice-less chunk", async () => {
    await script([{ content: "counted", usage }]);
    const stream = await client.chat.completions.create({
      model: "m",
      messages: user("x"),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({
      prompt_tokens: 123,
      completion_tokens: 45,
      total_tokens: 168,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
    expect(chunks.slice(0, -1).every((c) => c.usage == null)).toBe(true);
  });

  it("passes scripted usage through non-streaming", async () => {
    await script([{ content: "counted", usage }]);
    const res = await client.chat.completions.create({ model: "m", messages: user("x") });
    expect(res.usage).toMatchObject({ prompt_tokens: 123, completion_tokens: 45, total_tokens: 168 });
    expect(res.usage?.prompt_tokens_details?.cached_tokens).toBe(100);
  });

  it("estimates usage from lengths when none is scripted", async () => {
    const messages = user("a message of some length for counting");
    await script([{ content: "x".repeat(41) }]);
    const res = await client.chat.completions.create({ model: "m", messages });
    expect(res.usage?.prompt_tokens).toBe(Math.ceil(JSON.stringify(messages).length / 4));
    expect(res.usage?.completion_tokens).toBe(11);
  });
});

describe("mock model: errors and timing", () => {
  it("answers a scripted status as an APIError, with a single request made", async () => {
    await script([{ status: 429, content: "slow down" }]);
    const err = await client.chat.completions.create({ model: "m", messages: user("x") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(429);
    expect((err as APIError).message).toContain("slow down");
    expect((err as APIError).code).toBe("rate_limit_exceeded");
    expect(await requests()).toHaveLength(1);
  });

  it("answers a scripted redirect_to with a 307 and its Location, recording the request", async () => {
    await script([{ redirect_to: "http://169.254.169.254/v1/chat/completions" }]);
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: user("x") }),
      redirect: "manual",
    });
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe("http://169.254.169.254/v1/chat/completions");
    expect(await requests()).toHaveLength(1);
    expect((await script([{ redirect_to: 5 }])).status).toBe(400);
  });

  it("answers a scripted 500 to a streaming request before any stream starts", async () => {
    await script([{ status: 500 }]);
    const err = await client.chat.completions.create({ model: "m", messages: user("x"), stream: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(500);
  });

  it("waits delay_ms before answering", async () => {
    await script([{ content: "fast" }, { content: "slow", delay_ms: 400 }]);
    await client.chat.completions.create({ model: "m", messages: user("x") });
    const start = Date.now();
    const res = await client.chat.completions.create({ model: "m", messages: user("x") });
    const slow = Date.now() - start;
    expect(res.choices[0]?.message.content).toBe("slow");
    expect(slow).toBeGreaterThanOrEqual(390);
  });

  it("spreads streamed chunks over time with stream_chunk_ms", async () => {
    await script([{ content: "one two three four", stream_chunk_ms: 80 }]);
    const start = Date.now();
    const stream = await client.chat.completions.create({ model: "m", messages: user("x"), stream: true });
    const times: number[] = [];
    for await (const _chunk of stream) times.push(Date.now());
    // role, 4 words, finish: 6 chunks, each 80 ms after the previous one. A busy client may read
    // two of them in one go, so only what the server's pauses guarantee is asserted: the first
    // chunk comes before the last, and the last no sooner than five pauses after the request.
    expect(times).toHaveLength(6);
    expect(times[0]).toBeLessThan(times.at(-1) ?? 0);
    expect((times.at(-1) ?? 0) - start).toBeGreaterThanOrEqual(400);
  });
});

describe("mock model: control endpoints", () => {
  it("records request bodies in order and never returns the authorization value", async () => {
    await client.chat.completions.create({ model: "first", messages: user("1") });
    await client.chat.completions.create({ model: "second", messages: user("2"), stream: true }).then(async (s) => {
      for await (const _ of s);
    });
    const recorded = await requests();
    expect(recorded.map((r) => (r.body as { model: string }).model)).toEqual(["first", "second"]);
    expect(recorded[1]?.body).toMatchObject({ stream: true, messages: [{ role: "user", content: "2" }] });
    expect(recorded.every((r) => r.path === "/v1/chat/completions" && r.aborted === false)).toBe(true);
    expect(recorded[0]?.headers.authorization).toBe("[redacted]");
    expect(Object.keys(recorded[0]?.headers ?? {}).every((k) => k === k.toLowerCase())).toBe(true);
    expect(new Date(recorded[0]?.received_at ?? "").getTime()).not.toBeNaN();
    const raw = await (await fetch(`${mock.url}/__requests`)).text();
    expect(raw).not.toContain("sk-test-secret");
  });

  it("HARDEN-4: serves any base path, and records a fingerprint of the key, not the key", async () => {
    const tenant = new OpenAI({ baseURL: `${mock.url}/tenant/v1`, apiKey: "sk-tenant-key", maxRetries: 0 });
    await tenant.chat.completions.create({ model: "t", messages: user("1") });
    await client.chat.completions.create({ model: "p", messages: user("2") });
    const [first, second] = await requests();
    const { createHash } = await import("node:crypto");
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    expect(first).toMatchObject({ path: "/tenant/v1/chat/completions", authorization_sha256: sha("Bearer sk-tenant-key") });
    expect(second).toMatchObject({ path: "/v1/chat/completions", authorization_sha256: sha("Bearer sk-test-secret") });
    expect(JSON.stringify(await requests())).not.toContain("sk-tenant-key");
  });

  it("HARDEN-4: usage_extra lays any fields over the usage as sent, as a broken provider would", async () => {
    expect((await script([{ content: "x", usage_extra: { cost: -5000, prompt_tokens: -3 } }])).status).toBe(200);
    const reply = await client.chat.completions.create({ model: "m", messages: user("1") });
    expect(reply.usage).toMatchObject({ cost: -5000, prompt_tokens: -3 });
    expect((await script([{ usage_extra: 5 }])).status).toBe(400);
  });

  it("a held reply answers only once its hold is released; a reset lets it go too", async () => {
    expect(
      (
        await script([
          { content: "held", hold: "burst" },
          { content: "also held", hold: "burst" },
        ])
      ).status,
    ).toBe(200);
    let answered = false;
    const first = client.chat.completions.create({ model: "m", messages: user("1") }).then((r) => {
      answered = true;
      return r;
    });
    await vi.waitFor(async () => expect(await requests()).toHaveLength(1));
    expect(answered).toBe(false);
    const release = await fetch(`${mock.url}/__release`, { method: "POST", body: JSON.stringify({ hold: "burst" }) });
    expect(await release.json()).toEqual({ released: "burst", waiting: 1 });
    expect((await first).choices[0]?.message.content).toBe("held");
    // Released stays released: a later reply on the same hold does not wait.
    const second = await client.chat.completions.create({ model: "m", messages: user("2") });
    expect(second.choices[0]?.message.content).toBe("also held");
    const bad = await fetch(`${mock.url}/__release`, { method: "POST", body: JSON.stringify({ hold: 5 }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain("hold");
  });

  it("rejects an invalid script with 400 naming the bad field, queueing nothing", async () => {
    const cases: [unknown, string][] = [
      [[{ content: "ok" }, { delay_ms: "soon" }], "replies[1].delay_ms"],
      [[{ tool_calls: [{ arguments: {} }] }], "replies[0].tool_calls[0].name"],
      [[{ contnet: "typo" }], "replies[0].contnet"],
      [[{ usage: { prompt_tokens: 1 } }], "replies[0].usage.completion_tokens"],
      [[{ status: 200 }], "replies[0].status"],
    ];
    for (const [replies, field] of cases) {
      const res = await script(replies as unknown[]);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toContain(field);
    }
    const notArray = await fetch(`${mock.url}/__script`, { method: "POST", body: '{"replies":{}}' });
    expect(notArray.status).toBe(400);
    expect(((await notArray.json()) as { error: { message: string } }).error.message).toContain("replies");
    const res = await client.chat.completions.create({ model: "m", messages: user("nothing queued") });
    expect(res.choices[0]?.message.content).toBe("echo: nothing queued");
  });

  it("reports the queue length and resets queue and records on DELETE", async () => {
    expect(await (await script([{ content: "a" }, { content: "b" }])).json()).toEqual({ queued: 2 });
    expect(await (await script([{ content: "c" }])).json()).toEqual({ queued: 3 });
    await client.chat.completions.create({ model: "m", messages: user("x") });
    expect(await requests()).toHaveLength(1);
    const reset = await fetch(`${mock.url}/__script`, { method: "DELETE" });
    expect(reset.status).toBe(200);
    expect(await requests()).toEqual([]);
    const res = await client.chat.completions.create({ model: "m", messages: user("after reset") });
    expect(res.choices[0]?.message.content).toBe("echo: after reset");
  });

  it("serves health, models and a JSON 404", async () => {
    expect(await (await fetch(`${mock.url}/__health`)).json()).toEqual({ ok: true });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["mock-model"]);
    const missing = await fetch(`${mock.url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain("/v1/embeddings");
  });
});

describe("mock model: disconnects and shutdown", () => {
  it("records a client abort mid-stream and keeps serving", async () => {
    await script([{ content: "a b c d e f g h i j k l", stream_chunk_ms: 100 }]);
    const controller = new AbortController();
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: user("x"), stream: true }),
      signal: controller.signal,
    });
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toContain("chat.completion.chunk");
    controller.abort();
    let recorded: RecordedRequest[] = [];
    for (let i = 0; i < 50 && !recorded[0]?.aborted; i++) {
      await new Promise((r) => setTimeout(r, 20));
      recorded = await requests();
    }
    expect(recorded[0]?.aborted).toBe(true);
    const next = await client.chat.completions.create({ model: "m", messages: user("still here") });
    expect(next.choices[0]?.message.content).toBe("echo: still here");
    expect((await requests())[1]?.aborted).toBe(false);
  });

  it("closes promptly even with a stream in progress", async () => {
    const other = await startMockModel({ port: 0 });
    await fetch(`${other.url}/__script`, {
      method: "POST",
      body: JSON.stringify({ replies: [{ content: "a b c d", stream_chunk_ms: 10_000 }] }),
    });
    const res = await fetch(`${other.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true }),
    });
    const body = res.text().catch(() => "cut");
    const start = Date.now();
    await other.close();
    expect(Date.now() - start).toBeLessThan(1000);
    await body;
    await expect(fetch(`${other.url}/__health`)).rejects.toThrow();
  });

  it("runs as a CLI that prints one MOCK_MODEL line and exits 0 on SIGTERM", async () => {
    const main = fileURLToPath(new URL("./main.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", main, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    for (let i = 0; i < 200 && !out.includes("\n"); i++) await new Promise((r) => setTimeout(r, 50));
    const match = /^MOCK_MODEL (http:\/\/127\.0\.0\.1:(\d+))\n$/.exec(out);
    expect(match).not.toBeNull();
    expect(await (await fetch(`${match?.[1]}/__health`)).json()).toEqual({ ok: true });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 20_000);
});

describe("mock model: per-model queues", () => {
  it("serves replies scripted for a model only to requests naming it, before the shared queue", async () => {
    await fetch(`${mock.url}/__script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ replies: [{ content: "shared" }] }),
    });
    await fetch(`${mock.url}/__script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "alpha", replies: [{ content: "for alpha" }] }),
    });
    const ask = async (model: string) => {
      const res = await fetch(`${mock.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
      });
      return ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
    };
    expect(await ask("beta")).toBe("shared");
    expect(await ask("alpha")).toBe("for alpha");
    expect(await ask("alpha")).toBe("echo: hi");
    const count = (await (await fetch(`${mock.url}/__requests/count?model=alpha`)).json()) as { count: number };
    expect(count.count).toBe(2);
    const alpha = (await (await fetch(`${mock.url}/__requests?model=alpha`)).json()) as { requests: unknown[] };
    expect(alpha.requests).toHaveLength(2);
    const bad = await fetch(`${mock.url}/__script`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: 5, replies: [] }),
    });
    expect(bad.status).toBe(400);
  });
});
