/**
 * Test helper: one Chat Completions answer (text, then two tool calls) both as the chunks a
 * provider streams and as the whole completion it would answer instead. Not a test file,
 * imported by tests only.
 * @example new ChatStreamTranslator("claude-x").push(STREAMED_CHUNKS[0]);
 */

/** Multi-byte characters on purpose: the stream is re-cut inside them. */
export const ANSWER_TEXT = "Let me look — café ✓.";

export const STREAMED_CHUNKS: unknown[] = [
  {
    id: "chatcmpl-Abc.123",
    object: "chat.completion.chunk",
    model: "gpt-4.1",
    choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
  },
  { id: "chatcmpl-Abc.123", choices: [{ index: 0, delta: { content: "Let me look" }, finish_reason: null }] },
  { id: "chatcmpl-Abc.123", choices: [{ index: 0, delta: { reasoning_content: "thinking aloud", content: " — café ✓." }, finish_reason: null }] },
  {
    id: "chatcmpl-Abc.123",
    choices: [
      { index: 0, delta: { tool_calls: [{ index: 0, id: "call_read1", type: "function", function: { name: "Read", arguments: "" } }] }, finish_reason: null },
    ],
  },
  { id: "chatcmpl-Abc.123", choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"file_' } }] }, finish_reason: null }] },
  {
    id: "chatcmpl-Abc.123",
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'path":"/repo/README.md"}' } }] }, finish_reason: null }],
  },
  {
    id: "chatcmpl-Abc.123",
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 1, id: "call_bash2", type: "function", function: { name: "Bash", arguments: '{"command":' } }] },
        finish_reason: null,
      },
    ],
  },
  {
    id: "chatcmpl-Abc.123",
    choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '"ls -la","description":"List files"}' } }] }, finish_reason: null }],
  },
  { id: "chatcmpl-Abc.123", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
  { id: "chatcmpl-Abc.123", choices: [], usage: { prompt_tokens: 1200, completion_tokens: 48, prompt_tokens_details: { cached_tokens: 1024 } } },
];

export const WHOLE_COMPLETION = {
  id: "chatcmpl-Abc.123",
  object: "chat.completion",
  model: "gpt-4.1",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: ANSWER_TEXT,
        tool_calls: [
          { id: "call_read1", type: "function", function: { name: "Read", arguments: '{"file_path":"/repo/README.md"}' } },
          { id: "call_bash2", type: "function", function: { name: "Bash", arguments: '{"command":"ls -la","description":"List files"}' } },
        ],
      },
      finish_reason: "tool_calls",
    },
  ],
  usage: { prompt_tokens: 1200, completion_tokens: 48, prompt_tokens_details: { cached_tokens: 1024 } },
};

/** The chunks as a provider's SSE body, `[DONE]` last. */
export function chatSseBody(chunks: unknown[]): string {
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`;
}

/** The parsed events of Anthropic SSE texts, for reading what a translator emitted. */
export function eventsOf(texts: string[]): Record<string, unknown>[] {
  return texts.map((t) => {
    const data = t.split("\n").find((line) => line.startsWith("data: "));
    return JSON.parse(data!.slice(6)) as Record<string, unknown>;
  });
}
