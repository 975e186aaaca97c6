import { describe, expect, it } from "vitest";
import { chatSseBody, STREAMED_CHUNKS, WHOLE_COMPLETION } from "./chat-stream.fixture";
import { ChatStreamTranslator, messageOfCompletion, sseOf } from "./from-chat";
import { assembledOfMessage, MessageAccumulator } from "./message-stream";
import { SseReader } from "./sse";

/** The provider's SSE body through the reader and the translator: what the harness is sent. */
function translated(body: string, freshId?: string): string {
  const sse = new SseReader();
  const translator = new ChatStreamTranslator("claude-sonnet-4-5", freshId);
  const out: string[] = [];
  for (const event of [...sse.push(body), ...sse.end()]) out.push(...translator.pushData(event.data));
  out.push(...translator.end());
  return out.join("");
}

/** An Anthropic stream as a provider sends it: thinking with a signature, text, a call, usage updated at the end. */
const ANTHROPIC_STREAM = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01X","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":2000,"output_tokens":1}}}\n\n',
  'event: content_block_start\r\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}\r\n\r\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Check the file."}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAh"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: ping\ndata: {"type": "ping"}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading ✓"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"Read","input":{}}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"file_path\\": \\"/a\\"}"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":2}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":87}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");

const ANTHROPIC_ASSEMBLED = {
  id: "msg_01X",
  model: "claude-sonnet-4-5",
  content: [
    { type: "thinking", thinking: "Check the file.", signature: "EqQBCgIYAh" },
    { type: "text", text: "Reading ✓" },
    { type: "tool_use", id: "toolu_01", name: "Read", input: { file_path: "/a" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 12, cache_creation_input_tokens: 300, cache_read_input_tokens: 2000, output_tokens: 87 },
  error: null,
  complete: true,
  unreadable: 0,
};

function assembledInPieces(bytes: Uint8Array, cuts: number[]): ReturnType<MessageAccumulator["finish"]> {
  const accumulator = new MessageAccumulator();
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    accumulator.push(bytes.subarray(from, cut));
    from = cut;
  }
  return accumulator.finish();
}

describe("the reply assembled from a Messages stream", () => {
  it("TASK-016: assembles an Anthropic stream whole: thinking, text, a call's input, usage updated by message_delta", () => {
    const accumulator = new MessageAccumulator();
    accumulator.push(ANTHROPIC_STREAM);
    expect(accumulator.finish()).toEqual(ANTHROPIC_ASSEMBLED);
  });

  it("TASK-016: assembles the same reply however the stream's bytes are cut, inside lines and characters too", () => {
    const bytes = new TextEncoder().encode(ANTHROPIC_STREAM);
    for (let cut = 1; cut < bytes.length; cut++) expect(assembledInPieces(bytes, [cut])).toEqual(ANTHROPIC_ASSEMBLED);
    expect(
      assembledInPieces(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(ANTHROPIC_ASSEMBLED);
  });

  it("TASK-016: the translator's stream, cut at every byte, assembles to the whole answer's reply", () => {
    const expected = assembledOfMessage(messageOfCompletion(WHOLE_COMPLETION, "claude-sonnet-4-5"));
    const bytes = new TextEncoder().encode(translated(chatSseBody(STREAMED_CHUNKS)));
    for (let cut = 1; cut < bytes.length; cut++) expect(assembledInPieces(bytes, [cut])).toEqual(expected);
    expect(
      assembledInPieces(
        bytes,
        Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(expected);
    // And the provider's own stream cut at every byte translates to the same events.
    const body = new TextEncoder().encode(chatSseBody(STREAMED_CHUNKS));
    const whole = translated(chatSseBody(STREAMED_CHUNKS));
    for (let cut = 1; cut < body.length; cut += 7) {
      const sse = new SseReader();
      const translator = new ChatStreamTranslator("claude-sonnet-4-5");
      const events = [...sse.push(body.subarray(0, cut)), ...sse.push(body.subarray(cut)), ...sse.end()];
      expect([...events.flatMap((e) => translator.pushData(e.data)), ...translator.end()].join("")).toBe(whole);
    }
  });

  it("TASK-016: unparsable arguments assemble the same whichever way they came, the streamed text kept beside", () => {
    const call = { id: "call_1", type: "function", function: { name: "Bash", arguments: "{'command': 'ls'}" } };
    const whole = { id: "c1", choices: [{ index: 0, message: { content: "Running.", tool_calls: [call] }, finish_reason: "tool_calls" }] };
    const chunks = [
      { id: "c1", choices: [{ index: 0, delta: { content: "Running." } }] },
      { id: "c1", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...call }] }, finish_reason: "tool_calls" }] },
    ];
    const accumulator = new MessageAccumulator();
    accumulator.push(translated(chatSseBody(chunks)));
    const streamed = accumulator.finish();
    expect(streamed.content[1]).toEqual({ type: "tool_use", id: "call_1", name: "Bash", input: {}, input_text: "{'command': 'ls'}" });
    const { input_text: _, ...call1 } = streamed.content[1] as { input_text?: string };
    expect({ ...streamed, content: [streamed.content[0], call1, streamed.content[2]] }).toEqual(
      assembledOfMessage(messageOfCompletion(whole, "claude-sonnet-4-5")),
    );
  });

  it("TASK-016: keeps an error event and marks a stream cut short as incomplete", () => {
    const accumulator = new MessageAccumulator();
    const translator = new ChatStreamTranslator("m");
    accumulator.push(translator.push({ id: "c2", choices: [{ index: 0, delta: { content: "Half a rep" } }] }).join(""));
    accumulator.push(translator.fail("The provider's connection was lost").join(""));
    expect(accumulator.finish()).toMatchObject({
      id: "msg_c2",
      content: [{ type: "text", text: "Half a rep" }],
      stop_reason: null,
      error: { type: "api_error", message: "The provider's connection was lost" },
      complete: false,
    });
    const cut = new MessageAccumulator();
    cut.push(ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf("event: message_delta")));
    expect(cut.finish()).toMatchObject({ stop_reason: null, complete: false, error: null, usage: { output_tokens: 1 } });
  });

  it("skips what is not an event it reads, counting lines that are not JSON", () => {
    const accumulator = new MessageAccumulator();
    accumulator.push(": keep-alive\n\ndata: {oops\n\n");
    accumulator.push(sseOf({ type: "message_stop" }));
    accumulator.push('data: {"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"orphan"}}\n\n');
    accumulator.push('data: {"type":"server_event_of_tomorrow"}\n\n');
    expect(accumulator.finish()).toMatchObject({ content: [], unreadable: 1, complete: true });
  });
});
