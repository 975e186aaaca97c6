import { describe, expect, it } from "vitest";
import { ANSWER_TEXT, eventsOf, STREAMED_CHUNKS, WHOLE_COMPLETION } from "./chat-stream.fixture";
import { ChatStreamTranslator, messageOfCompletion } from "./from-chat";

const chunk = (delta: object, finish: string | null = null, id = "chatcmpl-9") => ({ id, choices: [{ index: 0, delta, finish_reason: finish }] });

describe("a whole Chat Completions answer as a Messages reply", () => {
  it("gives the text, then each tool call with its parsed input, stop_reason tool_use and Anthropic's usage", () => {
    expect(messageOfCompletion(WHOLE_COMPLETION, "claude-sonnet-4-5")).toEqual({
      id: "msg_chatcmpl-Abc123",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: ANSWER_TEXT },
        { type: "tool_use", id: "call_read1", name: "Read", input: { file_path: "/repo/README.md" } },
        { type: "tool_use", id: "call_bash2", name: "Bash", input: { command: "ls -la", description: "List files" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 176, output_tokens: 48, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024 },
    });
  });

  it("maps each finish reason, and names a reply without an id by the fresh id given", () => {
    const answer = (finish: string | null, extra: object = {}) => ({ choices: [{ index: 0, message: { content: "x", ...extra }, finish_reason: finish }] });
    expect(messageOfCompletion(answer("stop"), "m").stop_reason).toBe("end_turn");
    expect(messageOfCompletion(answer("length"), "m").stop_reason).toBe("max_tokens");
    expect(messageOfCompletion(answer("content_filter"), "m").stop_reason).toBe("refusal");
    expect(messageOfCompletion(answer("eos"), "m").stop_reason).toBe("end_turn");
    expect(messageOfCompletion(answer(null), "m").stop_reason).toBe("end_turn");
    const called = answer("stop", { tool_calls: [{ function: { name: "Read", arguments: "{}" } }] });
    const reply = messageOfCompletion(called, "m", "0b5e1c2a-1111");
    expect(reply.stop_reason).toBe("tool_use");
    expect(reply.id).toBe("msg_0b5e1c2a-1111");
    expect(reply.content[1]).toEqual({ type: "tool_use", id: "toolu_0b5e1c2a-1111_0", name: "Read", input: {} });
  });

  it("gives unparsable arguments the input {} and quotes them in a text block after the calls", () => {
    const reply = messageOfCompletion(
      { id: "c1", choices: [{ message: { content: null, tool_calls: [{ id: "call_1", function: { name: "Bash", arguments: "{'command': 'ls'}" } }] } }] },
      "m",
    );
    expect(reply.content).toEqual([
      { type: "tool_use", id: "call_1", name: "Bash", input: {} },
      { type: "text", text: "[The model's arguments for Bash (call_1) were not a JSON object, so the call was given {}. They were: {'command': 'ls'}]" },
    ]);
  });
});

describe("a Chat Completions stream as Messages stream events", () => {
  it("TASK-016: streams text, then each tool call as its own block with its argument fragments, then stop and usage", () => {
    const translator = new ChatStreamTranslator("claude-sonnet-4-5");
    const perChunk = STREAMED_CHUNKS.map((c) => eventsOf(translator.push(c)));
    const ended = eventsOf(translator.end());
    expect(perChunk[0]!.map((e) => e.type)).toEqual(["message_start", "ping"]);
    expect(perChunk[0]![0]).toEqual({
      type: "message_start",
      message: {
        id: "msg_chatcmpl-Abc123",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
    expect(perChunk.slice(1).flat()).toEqual([
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Let me look" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: " — café ✓." } },
      // The first fragment has no arguments yet: the block starts with the first of them.
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "call_read1", name: "Read", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"file_' } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: 'path":"/repo/README.md"}' } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "call_bash2", name: "Bash", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"command":' } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '"ls -la","description":"List files"}' } },
    ]);
    // Usage came in a last chunk with no choices: it waits for the end, with the stop reason.
    expect(ended).toEqual([
      { type: "content_block_stop", index: 2 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { input_tokens: 176, output_tokens: 48, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024 },
      },
      { type: "message_stop" },
    ]);
    expect(translator.end()).toEqual([]);
  });

  it("writes each event as Anthropic's SSE text, and ends at [DONE]", () => {
    const translator = new ChatStreamTranslator("m", "fresh");
    const [start, ping] = translator.pushData(JSON.stringify(chunk({ content: "Hi" }, null, "")));
    expect(start).toMatch(/^event: message_start\ndata: \{"type":"message_start","message":\{"id":"msg_fresh",/);
    expect(start!.endsWith("}\n\n")).toBe(true);
    expect(ping).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(eventsOf(translator.pushData("[DONE]")).map((e) => e.type)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
  });

  it("stops with max_tokens when the provider ran out of length, and notes a call cut off mid-arguments", () => {
    const translator = new ChatStreamTranslator("m");
    translator.push(chunk({ tool_calls: [{ index: 0, id: "call_w", function: { name: "Write", arguments: '{"content":"ab' } }] }));
    translator.push(chunk({}, "length"));
    const ended = eventsOf(translator.end());
    expect(ended.map((e) => e.type)).toEqual([
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(ended[2]).toEqual({
      type: "content_block_delta",
      index: 1,
      delta: {
        type: "text_delta",
        text: `[The model's arguments for Write (call_w) were not a JSON object, so the call was given {}. They were: {"content":"ab]`,
      },
    });
    expect(ended[4]).toMatchObject({ delta: { stop_reason: "max_tokens" }, usage: { input_tokens: 0, output_tokens: 0 } });
  });

  it("answers a failure mid-stream with an error event and nothing after it", () => {
    const translator = new ChatStreamTranslator("m");
    expect(translator.push(chunk({ content: "Hal" }))).toHaveLength(4);
    expect(eventsOf(translator.fail("The provider's connection was lost"))).toEqual([
      { type: "error", error: { type: "api_error", message: "The provider's connection was lost" } },
    ]);
    expect(translator.push(chunk({ content: "f" }))).toEqual([]);
    expect(translator.end()).toEqual([]);
    const reported = new ChatStreamTranslator("m");
    reported.push(chunk({ content: "x" }));
    expect(eventsOf(reported.push({ error: { message: "upstream overloaded", code: 502 } }))).toEqual([
      { type: "error", error: { type: "api_error", message: "The provider failed mid-stream: upstream overloaded" } },
    ]);
    expect(eventsOf(new ChatStreamTranslator("m").pushData("{not json"))[0]).toMatchObject({ type: "error" });
  });

  it("refuses fragments of a call whose block is closed, rather than stream them out of order", () => {
    const translator = new ChatStreamTranslator("m");
    translator.push(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "A", arguments: "{" } }] }));
    translator.push(chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "B", arguments: "{}" } }] }));
    const events = eventsOf(translator.push(chunk({ tool_calls: [{ index: 0, function: { arguments: "}" } }] })));
    expect(events).toEqual([{ type: "error", error: { type: "api_error", message: "The provider interleaved the fragments of two tool calls" } }]);
  });

  it("takes calls without an index by their ids, and a whole call in one chunk", () => {
    const translator = new ChatStreamTranslator("m");
    const out = eventsOf([
      ...translator.push(
        chunk({
          tool_calls: [
            { id: "a", function: { name: "A", arguments: '{"x":1}' } },
            { id: "b", function: { name: "B", arguments: "" } },
          ],
        }),
      ),
      ...translator.end(),
    ]);
    expect(out.filter((e) => e.type === "content_block_start").map((e) => e.content_block)).toEqual([
      { type: "tool_use", id: "a", name: "A", input: {} },
      { type: "tool_use", id: "b", name: "B", input: {} },
    ]);
  });
});
