/**
 * Drives the mock model's Anthropic Messages API over real HTTP with fetch, reading the
 * stream as a Messages client does, so the tests assert what a harness like Claude Code sees.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockModel, type RecordedRequest, startMockModel } from "./server";

let mock: MockModel;

beforeAll(async () => {
  mock = await startMockModel({ port: 0 });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  expect((await fetch(`${mock.url}/__script`, { method: "DELETE" })).status).toBe(200);
});

type Obj = Record<string, unknown>;
type Event = { event: string; data: Obj };

async function script(replies: unknown[], model?: string): Promise<void> {
  const res = await fetch(`${mock.url}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ replies, ...(model ? { model } : {}) }),
  });
  expect(res.status).toBe(200);
}

async function requests(): Promise<RecordedRequest[]> {
  return ((await (await fetch(`${mock.url}/__requests`)).json()) as { requests: RecordedRequest[] }).requests;
}

const user = (content: string) => [{ role: "user", content }];

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${mock.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-test-key", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
}

/** A whole (non-streaming) message, the request defaulting to one user turn. */
async function message(body: Obj = {}): Promise<Obj> {
  const res = await post("/v1/messages", { model: "claude-test", max_tokens: 1024, messages: user("hi"), ...body });
  expect(res.status).toBe(200);
  return (await res.json()) as Obj;
}

/** Server-sent events as a Messages client parses them: `event:` and one `data:` line, blank-line separated. */
function parseSse(text: string): Event[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      const match = /^event: (\S+)\ndata: (.*)$/.exec(frame);
      if (!match) throw new Error(`not an event frame: ${JSON.stringify(frame)}`);
      return { event: match[1]!, data: JSON.parse(match[2]!) as Obj };
    });
}

async function stream(body: Obj = {}): Promise<Event[]> {
  const res = await post("/v1/messages", { model: "claude-test", max_tokens: 1024, messages: user("hi"), stream: true, ...body });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const events = parseSse(await res.text());
  for (const { event, data } of events) expect(data.type).toBe(event);
  return events;
}

const deltas = (events: Event[], index: number) =>
  events.filter((e) => e.event === "content_block_delta" && e.data.index === index).map((e) => e.data.delta as Obj);

const estimate = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);

describe("mock model, Messages API: text", () => {
  const content = "The quick brown fox jumps over the lazy dog, twice.";

  it("answers a scripted text reply as one whole message", async () => {
    await script([{ content, usage: { prompt_tokens: 10, completion_tokens: 12 } }]);
    const body = await message();
    expect(body).toEqual({
      id: expect.stringMatching(/^msg_mock_\d+$/),
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: content }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 12 },
    });
  });

  it("streams a scripted text reply in the exact event order, its text deltas adding up to the content", async () => {
    await script([{ content }]);
    const events = await stream();
    const pieces = deltas(events, 0);
    expect(pieces.length).toBeGreaterThan(3);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      ...pieces.map(() => "content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const start = events[0]!.data.message as Obj;
    expect(start).toMatchObject({ id: expect.stringMatching(/^msg_mock_\d+$/), type: "message", role: "assistant", model: "claude-test", content: [] });
    expect(start.stop_reason).toBeNull();
    expect((start.usage as Obj).input_tokens).toBe(estimate(user("hi")));
    expect(events[2]!.data).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(pieces.every((d) => d.type === "text_delta")).toBe(true);
    expect(pieces.map((d) => d.text).join("")).toBe(content);
    expect(events.at(-3)!.data).toEqual({ type: "content_block_stop", index: 0 });
    expect(events.at(-2)!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: Math.ceil(content.length / 4) },
    });
  });

  it("echoes the person's last words when nothing is queued, past a turn of tool results", async () => {
    const messages = [
      { role: "user", content: [{ type: "text", text: "list the files" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_a", name: "ls", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "README.md" }] },
    ];
    expect((await message({ messages })).content).toEqual([{ type: "text", text: "echo: list the files" }]);
  });

  it("answers under any base path, as the Chat Completions path does", async () => {
    await script([{ content: "bare" }, { content: "tenant" }]);
    for (const [path, text] of [
      ["/messages", "bare"],
      ["/tenant/v1/messages", "tenant"],
    ]) {
      const res = await post(path!, { model: "m", max_tokens: 5, messages: user("x") });
      expect(((await res.json()) as { content: unknown }).content).toEqual([{ type: "text", text }]);
    }
    expect((await requests()).map((r) => r.path)).toEqual(["/messages", "/tenant/v1/messages"]);
  });
});

describe("mock model, Messages API: tool use and thinking", () => {
  const args = { path: "src/index.ts", content: "export const answer = 42;\n", mode: "overwrite" };

  it("streams a tool call as a tool_use block whose input_json_deltas reassemble to the scripted arguments", async () => {
    await script([
      {
        content: "Writing it.",
        tool_calls: [
          { name: "Write", arguments: args },
          { id: "toolu_custom_7", name: "Bash", arguments: '{"command":"ls"}' },
        ],
      },
    ]);
    const events = await stream();
    const starts = events.filter((e) => e.event === "content_block_start").map((e) => e.data);
    expect(starts).toEqual([
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_mock_1", name: "Write", input: {} } },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_custom_7", name: "Bash", input: {} } },
    ]);
    const pieces = deltas(events, 1);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.every((d) => d.type === "input_json_delta")).toBe(true);
    expect(JSON.parse(pieces.map((d) => d.partial_json).join(""))).toEqual(args);
    expect(
      JSON.parse(
        deltas(events, 2)
          .map((d) => d.partial_json)
          .join(""),
      ),
    ).toEqual({ command: "ls" });
    // Each block opens, fills and closes before the next opens.
    const order = events.filter((e) => e.data.index !== undefined).map((e) => `${e.event}:${e.data.index}`);
    expect(order.filter((step, i) => step !== order[i - 1])).toEqual(
      [0, 1, 2].flatMap((i) => [`content_block_start:${i}`, `content_block_delta:${i}`, `content_block_stop:${i}`]),
    );
    expect((events.at(-2)!.data.delta as Obj).stop_reason).toBe("tool_use");
  });

  it("returns tool calls whole with parsed input, numbering ids that are not tool-use ids", async () => {
    await script([{ tool_calls: [{ name: "Write", arguments: args }] }, { tool_calls: [{ id: "call_x", name: "Read", arguments: "{}" }] }]);
    const one = await message();
    const two = await message();
    expect(one.content).toEqual([{ type: "tool_use", id: "toolu_mock_1", name: "Write", input: args }]);
    expect(one.stop_reason).toBe("tool_use");
    expect(two.content).toEqual([{ type: "tool_use", id: "toolu_mock_2", name: "Read", input: {} }]);
  });

  it("puts scripted reasoning in a signed thinking block before the text, whole and streamed", async () => {
    const reply = { reasoning: "Let me think about this carefully.", content: "Answer." };
    await script([reply, reply]);
    const whole = (await message()).content as Obj[];
    expect(whole).toEqual([
      { type: "thinking", thinking: reply.reasoning, signature: expect.any(String) },
      { type: "text", text: "Answer." },
    ]);
    const events = await stream();
    expect(events[2]!.data.content_block).toEqual({ type: "thinking", thinking: "", signature: "" });
    const thinking = deltas(events, 0);
    expect(thinking.at(-1)).toEqual({ type: "signature_delta", signature: whole[0]!.signature });
    expect(thinking.slice(0, -1).every((d) => d.type === "thinking_delta")).toBe(true);
    expect(thinking.map((d) => d.thinking ?? "").join("")).toBe(reply.reasoning);
    expect(
      deltas(events, 1)
        .map((d) => d.text)
        .join(""),
    ).toBe("Answer.");
  });
});

describe("mock model, Messages API: usage and stop reasons", () => {
  it("reports cached prompt tokens apart from the rest of the input", async () => {
    const usage = { prompt_tokens: 123, completion_tokens: 45, cached_tokens: 100 };
    await script([
      { content: "counted", usage },
      { content: "counted", usage },
    ]);
    const expected = { input_tokens: 23, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 45 };
    expect((await message()).usage).toEqual(expected);
    const events = await stream();
    expect((events[0]!.data.message as Obj).usage).toEqual({ ...expected, output_tokens: 0 });
    expect(events.at(-2)!.data.usage).toEqual({ output_tokens: 45 });
  });

  it("estimates usage from the system prompt and messages when none is scripted, as count_tokens does", async () => {
    const request = { model: "m", system: "You are terse.", messages: user("a message of some length for counting") };
    const counted = await post("/v1/messages/count_tokens", request);
    expect(await counted.json()).toEqual({ input_tokens: estimate([request.system, ...request.messages]) });
    await script([{ content: "x".repeat(41) }]);
    expect((await message({ ...request, max_tokens: 10 })).usage).toMatchObject({
      input_tokens: estimate([request.system, ...request.messages]),
      output_tokens: 11,
    });
  });

  it("maps a scripted length finish to max_tokens", async () => {
    await script([{ content: "cut", finish_reason: "length" }]);
    expect((await message()).stop_reason).toBe("max_tokens");
  });
});

describe("mock model, Messages API: shared queues", () => {
  it("serves one model's queue to both protocols in order, before the shared queue", async () => {
    await script([{ content: "shared" }]);
    await script([{ content: "first, as a chat completion" }, { content: "second, as a message" }], "claude-shared");
    const completion = await post("/v1/chat/completions", { model: "claude-shared", messages: user("hi") });
    const choices = ((await completion.json()) as { choices: { message: { content: string } }[] }).choices;
    expect(choices[0]!.message.content).toBe("first, as a chat completion");
    expect((await message({ model: "claude-shared" })).content).toEqual([{ type: "text", text: "second, as a message" }]);
    expect((await message({ model: "claude-shared" })).content).toEqual([{ type: "text", text: "shared" }]);
    expect((await message({ model: "claude-shared" })).content).toEqual([{ type: "text", text: "echo: hi" }]);
    const count = (await (await fetch(`${mock.url}/__requests/count?model=claude-shared`)).json()) as { count: number };
    expect(count.count).toBe(4);
  });
});

describe("mock model, Messages API: errors, refusals and timing", () => {
  it("answers a scripted 429 as an Anthropic error body with the scripted headers", async () => {
    const headers = { "retry-after": "7", "anthropic-ratelimit-requests-reset": "2030-01-01T00:00:00Z" };
    await script([{ status: 429, content: "slow down", headers }]);
    const res = await post("/v1/messages", { model: "m", max_tokens: 5, messages: user("x"), stream: true });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("anthropic-ratelimit-requests-reset")).toBe("2030-01-01T00:00:00Z");
    expect(await res.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
  });

  it("names the error type by status", async () => {
    const types: [number, string][] = [
      [400, "invalid_request_error"],
      [401, "authentication_error"],
      [403, "permission_error"],
      [404, "not_found_error"],
      [500, "api_error"],
      [529, "overloaded_error"],
    ];
    await script(types.map(([status]) => ({ status })));
    for (const [status, type] of types) {
      const res = await post("/v1/messages", { model: "m", max_tokens: 5, messages: user("x") });
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe(type);
    }
  });

  it("refuses what the real API refuses with a 400 naming the problem, taking no reply", async () => {
    await script([{ content: "kept for a valid request" }]);
    const valid = { model: "m", max_tokens: 5, messages: user("x") };
    const cases: [Obj, string][] = [
      [{ ...valid, model: undefined }, "model"],
      [{ ...valid, max_tokens: undefined }, "max_tokens"],
      [{ ...valid, max_tokens: 0 }, "max_tokens"],
      [{ ...valid, max_tokens: -3 }, "max_tokens"],
      [{ ...valid, messages: undefined }, "messages"],
      [{ ...valid, messages: [] }, "messages"],
      [{ ...valid, messages: [{ role: "system", content: "be brief" }] }, "messages.0.role"],
      [{ ...valid, messages: [...user("x"), { role: "tool", content: "out" }] }, "messages.1.role"],
    ];
    for (const [body, problem] of cases) {
      const res = await post("/v1/messages", body);
      expect(res.status).toBe(400);
      const error = (await res.json()) as Obj;
      expect(error).toEqual({ type: "error", error: { type: "invalid_request_error", message: expect.stringContaining(problem) } });
    }
    expect((await message()).content).toEqual([{ type: "text", text: "kept for a valid request" }]);
  });

  it("refuses a tool_result that answers no tool_use of the assistant message right before it", async () => {
    const asked = { role: "assistant", content: [{ type: "tool_use", id: "toolu_a", name: "ls", input: {} }] };
    const answer = (id: string) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] });
    const refusal = async (messages: unknown[]) => {
      const res = await post("/v1/messages", { model: "m", max_tokens: 5, messages });
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { type: string; message: string } }).error;
    };
    const renamed = await refusal([...user("x"), asked, answer("toolu_b")]);
    expect(renamed.type).toBe("invalid_request_error");
    expect(renamed.message).toContain("messages.2.content.0");
    expect(renamed.message).toContain("toolu_b");
    expect((await refusal([answer("toolu_a")])).message).toContain("tool_use_id");
    expect((await refusal([...user("x"), asked, ...user("no result")])).message).toContain("toolu_a");
    expect((await message({ messages: [...user("x"), asked, answer("toolu_a")] })).type).toBe("message");
  });

  it("records refused requests too, so a test reads what was sent", async () => {
    await post("/v1/messages", { model: "m", messages: user("x") });
    expect((await requests()).map((r) => [r.path, r.body])).toEqual([["/v1/messages", { model: "m", messages: user("x") }]]);
  });

  it("answers a scripted redirect_to with a 307 and spreads streamed events with stream_chunk_ms", async () => {
    await script([{ redirect_to: "http://169.254.169.254/v1/messages" }, { content: "one two", stream_chunk_ms: 50, delay_ms: 100 }]);
    const moved = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: user("x") }),
      redirect: "manual",
    });
    expect(moved.status).toBe(307);
    expect(moved.headers.get("location")).toBe("http://169.254.169.254/v1/messages");
    const started = Date.now();
    const events = await stream();
    // message_start, ping, start, two deltas, stop, message_delta, message_stop: seven pauses after the delay.
    expect(events).toHaveLength(8);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100 + 7 * 50);
  });
});

describe("mock model, Messages API: keys and count_tokens", () => {
  const sha = (text: string) => createHash("sha256").update(text).digest("hex");

  it("records a fingerprint of the x-api-key, never the key", async () => {
    await message();
    await post("/v1/messages", { model: "m", max_tokens: 5, messages: user("x") }, { "x-api-key": "", authorization: "Bearer sk-ant-bearer" });
    const [first, second] = await requests();
    expect(first).toMatchObject({ path: "/v1/messages", authorization_sha256: sha("sk-ant-test-key") });
    expect(first!.headers["x-api-key"]).toBe("[redacted]");
    expect(first!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(second!.authorization_sha256).toBe(sha("Bearer sk-ant-bearer"));
    const raw = await (await fetch(`${mock.url}/__requests`)).text();
    expect(raw).not.toContain("sk-ant-test-key");
    expect(raw).not.toContain("sk-ant-bearer");
  });

  it("counts tokens without max_tokens, refusing a body without messages", async () => {
    const messages = user("count me");
    const res = await post("/v1/messages/count_tokens", { model: "m", messages });
    expect(await res.json()).toEqual({ input_tokens: estimate(messages) });
    const refused = await post("/v1/messages/count_tokens", { model: "m" });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("messages");
    expect((await requests()).map((r) => r.path)).toEqual(["/v1/messages/count_tokens", "/v1/messages/count_tokens"]);
  });
});
